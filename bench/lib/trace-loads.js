/**
 * Preloaded with `node --import ./bench/lib/trace-loads.js`: appends every module the process loads (ESM through
 * a resolve hook, CommonJS through the resolver) to the file named by BENCH_LOADS_FILE, one per line. Used only
 * to check which modules the start-up paths load; never while timing.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.BENCH_LOADS_FILE;
if (file) {
  register('./load-hooks.js', import.meta.url, { data: { file } });
  const Module = createRequire(import.meta.url)('node:module');
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function traced(...args) {
    const resolved = resolveFilename.apply(this, args);
    appendFileSync(file, `${resolved}\n`);
    return resolved;
  };
}
