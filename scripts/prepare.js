/**
 * `npm ci`'s prepare step: `npm run build`, unless dist/ is already newer than everything it is built from. `npx
 * listings` in a clone runs prepare too (npm installs the project to run its bin), before every command: without
 * this, each one rebuilt dist/ (its bundle removed and put back), which took time and broke any other `listings`
 * running from the same clone at that moment. `npm run build` always builds.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** The newest modification time of the files under `dir` (recursively), or of `dir` itself when it is a file. */
function newest(path) {
  let latest = mtime(path);
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true, recursive: true });
  } catch {
    return latest;
  }
  for (const entry of entries) if (entry.isFile()) latest = Math.max(latest, mtime(join(entry.parentPath, entry.name)));
  return latest;
}

const inputs = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((name) => newest(join(ROOT, name)));
const outputs = [join('cli', 'main.js'), 'help.json', join('bundle', 'main.js')].map((file) => mtime(join(ROOT, 'dist', file)));
const fresh = Math.min(...outputs) > Math.max(...inputs);
if (fresh) console.log('dist/ is newer than its sources: not built again (npm run build builds it)');
else execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
