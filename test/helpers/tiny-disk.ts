import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Run `body` with a real full disk: a 12 KiB tmpfs mounted at `<dir>/tiny` (needs root), unmounted afterwards.
 * Where it cannot be mounted the test is skipped, and says so.
 */
export async function withTinyDisk(dir: string, context: { skip: () => void }, body: (tiny: string) => Promise<void>): Promise<void> {
  const tiny = join(dir, 'tiny');
  mkdirSync(tiny);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=12k', 'tmpfs', tiny]).status !== 0) {
    console.warn('SKIPPED: a tiny tmpfs cannot be mounted here (needs root): a full-disk case is not tested');
    context.skip();
    return;
  }
  try {
    await body(tiny);
  } finally {
    spawnSync('umount', [tiny]);
  }
}
