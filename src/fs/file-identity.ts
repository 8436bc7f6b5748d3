import type { BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * The identity of a file, the same for every name it has (another spelling, a symbolic link, a hard link, a linked
 * directory): its device and inode. `stats` are those of the file itself (stat, not lstat), read as bigints since an
 * inode number may exceed what a double holds exactly.
 */
export function identityOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}`;
}

/** The identity of the file at `path` (see identityOf); undefined when there is none to stat. */
export async function fileIdentity(path: string): Promise<{ identity: string; stats: BigIntStats } | undefined> {
  const stats = await stat(path, { bigint: true }).catch(() => undefined);
  return stats === undefined ? undefined : { identity: identityOf(stats), stats };
}
