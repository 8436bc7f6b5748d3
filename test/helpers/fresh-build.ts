import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** The newest modification time of the files under `dir` whose names end with `suffix`; 0 when there are none. */
function newest(dir: string, suffix: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

function builtAt(file = join('cli', 'main.js')): number {
  try {
    return statSync(join(ROOT, 'dist', file)).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * vitest's global setup: the end-to-end tests run the built binary, so a `dist` older than `src` (a test run
 * without `npm test`'s build, after an edit) would test yesterday's code. Build it first in that case.
 */
export default function setup(): void {
  if (builtAt() < newest(join(ROOT, 'src'), '.ts')) {
    console.warn('dist is older than src: building it first (npm run build)');
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  }
  // The build's next step (package.json): the help bin/listings.js prints, made from the program just built.
  if (builtAt('help.json') < builtAt()) execFileSync(process.execPath, [join(ROOT, 'scripts', 'help-models.js')], { stdio: 'inherit' });
  // And the CLI's bundle, which bin/listings.js runs: linked from dist as tsc just wrote it.
  if (builtAt(join('bundle', 'main.js')) < builtAt()) execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.js')], { stdio: 'inherit' });
}
