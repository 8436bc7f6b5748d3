import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemeOf } from '../catalog/sources/source-kind.js';
import { ConfigError } from '../errors.js';
import { printable } from '../printable.js';

/** A file a run will write (`report r.csv`, `--out file`), its path as given and resolved against `cwd`. */
export interface OutputToCheck {
  path: string;
  role: string;
  cwd: string;
}

/** The local file a source names (a path or a `file://` URL), or undefined for stdin and remote sources. */
function localPath(source: string): string | undefined {
  const scheme = schemeOf(source);
  if (scheme === undefined) return source === '-' ? undefined : source;
  if (scheme !== 'file') return undefined;
  try {
    return fileURLToPath(source);
  } catch {
    return undefined;
  }
}

/** `dev:ino` of the regular file at `path` (links followed), or undefined when there is none. */
async function identity(path: string): Promise<string | undefined> {
  const stats = await stat(path, { bigint: true }).catch(() => undefined);
  return stats?.isFile() === true ? `${stats.dev}:${stats.ino}` : undefined;
}

/**
 * Refuses an output that is one of the catalogs being read, by the file itself (so a link or another spelling of
 * the path is found too): a report is put in place over it at the end of the run, and `--out` is emptied when it is
 * opened, before the catalog is read; either way the catalog would be lost. Throws a ConfigError naming both; a
 * source that cannot be looked at is left to its reader to report.
 */
export async function checkOutputsAreNotSources(outputs: readonly OutputToCheck[], sources: readonly string[]): Promise<void> {
  if (outputs.length === 0) return;
  const read = new Map<string, string>();
  for (const source of sources) {
    const path = localPath(source);
    if (path === undefined) continue;
    const id = await identity(path);
    if (id !== undefined && !read.has(id)) read.set(id, source);
  }
  if (read.size === 0) return;
  for (const output of outputs) {
    const id = await identity(resolve(output.cwd, output.path));
    const source = id === undefined ? undefined : read.get(id);
    if (source === undefined) continue;
    throw new ConfigError(`the ${output.role} ${printable(output.path, { lines: false })} is the catalog ${printable(source, { lines: false })}: writing it would replace the catalog being read`, {
      hint: 'choose another path for it; nothing was read or sent',
    });
  }
}
