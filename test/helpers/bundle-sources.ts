import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './cli.js';

const BUNDLE = join(REPO_ROOT, 'dist', 'bundle');

/**
 * The modules a process loaded, as paths, with each file of the CLI's bundle (dist/bundle/) replaced by the modules
 * of dist it holds (dist/bundle/sources.json, written by the build): a test can then ask whether
 * dist/cli/commands/publish.js was loaded whichever way the CLI was built. Other paths and URLs are kept as given.
 */
export function unbundled(loaded: string[]): string[] {
  const sources = JSON.parse(readFileSync(join(BUNDLE, 'sources.json'), 'utf8')) as Record<string, string[]>;
  return loaded.flatMap((entry) => {
    const path = entry.startsWith('file:') ? fileURLToPath(entry) : entry;
    if (!path.startsWith(`${BUNDLE}/`)) return [entry];
    const held = sources[basename(path)];
    if (held === undefined) throw new Error(`${path} is not in dist/bundle/sources.json: a bundle older than its map`);
    return held.map((module) => join(REPO_ROOT, module));
  });
}
