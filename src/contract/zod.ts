import { createRequire } from 'node:module';
import type * as Zod from 'zod';

let zod: typeof Zod | undefined;

/**
 * zod, loaded on first use (some 70 ms and 12 MB): a clean catalog never needs it. Synchronous, since the preparer
 * is; the CommonJS build, so that every caller in the process shares one instance.
 */
export function loadZod(): typeof Zod {
  return (zod ??= createRequire(import.meta.url)('zod') as typeof Zod);
}
