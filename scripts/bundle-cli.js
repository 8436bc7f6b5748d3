/**
 * A step of `npm run build`, after tsc: the CLI (dist/cli/main.js and the modules of dist it imports) linked into
 * dist/bundle/, one file for what every command runs and one per part loaded lazily (a command, a source, a report
 * format), so a command opens about 60 files of the tool instead of 170 and takes 6-13 % less CPU to start (bench/
 * RESULTS.md). The packages stay where they are (node_modules, loaded as before); dist/ stays as tsc wrote it, for
 * the library's exports.
 *
 * dist/bundle/sources.json names, for each file of the bundle, the modules of dist it holds: the lazy-loading tests
 * read which parts a command loaded from it. A dynamic import the linker cannot follow (a computed path) would fail
 * at run time, so any warning fails the build.
 */
import { build } from 'esbuild';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const target = join(ROOT, 'dist', 'bundle');
const partial = `${target}.${process.pid}`;

rmSync(partial, { recursive: true, force: true });
mkdirSync(partial, { recursive: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { main: 'dist/cli/main.js' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: partial,
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'silent',
});
if (result.errors.length > 0 || result.warnings.length > 0) {
  for (const message of [...result.errors, ...result.warnings]) {
    const at = message.location ? `${message.location.file}:${message.location.line}: ` : '';
    process.stderr.write(`bundle-cli: ${at}${message.text}\n`);
  }
  rmSync(partial, { recursive: true, force: true });
  process.exit(1);
}

const sources = {};
for (const [output, { inputs }] of Object.entries(result.metafile.outputs)) {
  if (output.endsWith('.js')) sources[basename(output)] = Object.keys(inputs);
}
writeFileSync(join(partial, 'sources.json'), `${JSON.stringify(sources, null, 1)}\n`);
rmSync(target, { recursive: true, force: true });
renameSync(partial, target);
