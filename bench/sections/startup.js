/**
 * (4) start-up: `listings --version` and `listings --help` vs `node -e 0`, interleaved, and which modules those
 * paths load: nothing heavy (the AWS SDK, the sandbox, the HTML report) may be among them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, BIN, NODE, ROOT, listingsEnv, log, scratch } from '../lib/context.js';
import { wallOnce } from '../lib/proc.js';
import { round, summary } from '../lib/stats.js';

/** Module paths that must not load just to print the version or the help. */
export const HEAVY = [
  { name: 'the AWS SDK', pattern: /node_modules\/@(?:aws-sdk|smithy)\// },
  // The sandbox command's flag ranges (sandbox/options.js, types.js) are light and may load; the server may not.
  { name: 'the sandbox', pattern: /\/dist\/sandbox\/(?!options\.js$|types\.js$)/ },
  { name: 'the HTML report', pattern: /\/dist\/report\/html/ },
];

/** The paths loaded, a file of the CLI's bundle standing for the modules of dist it holds (dist/bundle/sources.json). */
function unbundled(loaded) {
  const held = JSON.parse(readFileSync(join(ROOT, 'dist', 'bundle', 'sources.json'), 'utf8'));
  return loaded.flatMap((path) => {
    const file = /\/dist\/bundle\/([^/]+\.js)$/.exec(path)?.[1];
    return file === undefined ? [path] : held[file].map((module) => join(ROOT, module));
  });
}

function loadsOf(args, home) {
  const file = join(home, `loads-${args.join('-')}.txt`);
  const env = { ...listingsEnv(home), BENCH_LOADS_FILE: file };
  const result = wallOnce(NODE, ['--import', join(BENCH_DIR, 'lib', 'trace-loads.js'), BIN, ...args], { env, cwd: home });
  if (result.code !== 0) throw new Error(`listings ${args.join(' ')} exited with ${result.code}: ${result.stderr.slice(0, 300)}`);
  const loaded = [...new Set(unbundled(readFileSync(file, 'utf8').split('\n').filter(Boolean)))];
  const projectFiles = loaded.filter((p) => p.includes('/dist/')).map((p) => p.slice(p.indexOf('/dist/') + 1));
  const packages = [...new Set(loaded.map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1]).filter(Boolean))].sort();
  const heavy = HEAVY.filter((h) => loaded.some((p) => h.pattern.test(p.replace(ROOT, '')))).map((h) => h.name);
  return { modules: loaded.length, projectFiles: projectFiles.length, packages, heavy };
}

export function benchStartup(ctx) {
  const work = scratch();
  try {
    const env = listingsEnv(work.dir);
    const commands = {
      node: ['-e', '0'],
      version: [BIN, '--version'],
      help: [BIN, '--help'],
    };
    for (const args of Object.values(commands)) wallOnce(NODE, args, { env, cwd: work.dir }); // warm the file cache
    const times = { node: [], version: [], help: [] };
    for (let i = 0; i < ctx.startupRepeats; i++) {
      for (const [name, args] of Object.entries(commands)) {
        const result = wallOnce(NODE, args, { env, cwd: work.dir });
        if (result.code !== 0) throw new Error(`node ${args.join(' ')} exited with ${result.code}: ${result.stderr.slice(0, 300)}`);
        times[name].push(result.wallMs);
      }
    }
    const node = summary(times.node);
    const version = summary(times.version);
    const help = summary(times.help);
    const loads = { version: loadsOf(['--version'], work.dir), help: loadsOf(['--help'], work.dir) };
    log(`  start-up: node -e 0 ${round(node.median)} ms, --version ${round(version.median)} ms, --help ${round(help.median)} ms`);
    return {
      repeats: ctx.startupRepeats,
      nodeMs: node,
      versionMs: version,
      helpMs: help,
      versionRatio: version.median / node.median,
      helpRatio: help.median / node.median,
      loads,
      heavyLoaded: [...new Set([...loads.version.heavy, ...loads.help.heavy])],
    };
  } finally {
    work.remove();
  }
}
