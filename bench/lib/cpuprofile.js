/** Summaries of a V8 .cpuprofile: where the self time goes, by function and by file or package. */
import { readFileSync } from 'node:fs';

function where(url, root) {
  if (!url) return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (pkg) return `npm:${pkg[1]}`;
  if (path.startsWith('node:')) return path;
  return root && path.startsWith(root) ? path.slice(root.length).replace(/^\/+/, '') : path;
}

/**
 * { totalMs, functions: [{ name, file, line, selfMs, share }], files: [{ file, selfMs, share }] }, heaviest first.
 * `root` shortens project paths.
 */
export function summariseProfile(path, { root, top = 25 } = {}) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  const byFunction = new Map();
  const byFile = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = nodes.get(id);
    total += us;
    const file = where(callFrame.url, root);
    const name = callFrame.functionName || '(anonymous)';
    const key = `${name}\u0000${file}\u0000${callFrame.lineNumber}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const share = (us) => Math.round((us / total) * 1000) / 10;
  const functions = [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, us]) => {
      const [name, file, line] = key.split('\u0000');
      return { name, file, line: Number(line) + 1, selfMs: Math.round(us / 1000), share: share(us) };
    });
  const files = [...byFile]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([file, us]) => ({ file, selfMs: Math.round(us / 1000), share: share(us) }));
  return { totalMs: Math.round(total / 1000), functions, files };
}

/** The summary as text lines. */
export function formatProfile(summary) {
  const lines = [`total sampled: ${summary.totalMs} ms`, '', 'self time by file or package:'];
  for (const f of summary.files) lines.push(`  ${String(f.share).padStart(5)}%  ${String(f.selfMs).padStart(6)} ms  ${f.file}`);
  lines.push('', 'self time by function:');
  for (const f of summary.functions) {
    lines.push(`  ${String(f.share).padStart(5)}%  ${String(f.selfMs).padStart(6)} ms  ${f.name}  ${f.file}:${f.line}`);
  }
  return lines;
}
