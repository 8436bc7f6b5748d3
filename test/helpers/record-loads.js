/**
 * Preloaded with `node --import` by the lazy-loading tests: at exit, writes to LOADS_FILE the CommonJS modules the
 * process loaded (zod and undici are required through createRequire, so they show in the cache whichever way they
 * came) and Node's own loaded modules (where its built-in undici shows).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.LOADS_FILE;
const cache = createRequire(import.meta.url).cache;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, JSON.stringify({ modules: Object.keys(cache), builtins: process.moduleLoadList }));
  });
}
