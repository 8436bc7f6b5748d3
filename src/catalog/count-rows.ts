import { open } from 'node:fs/promises';
import { formatFromName } from './formats/detect.js';
import { countLineEnds, isLineEnd } from './formats/line-ends.js';
import type { CatalogOptions } from './types.js';

const CHUNK = 1 << 20;

/** True for a plain local file whose rows are lines: the only case where a row count is cheap and close. */
function countable(source: string, options: CatalogOptions): boolean {
  if (source === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /\.gz$/i.test(source) || options.preset !== undefined) return false;
  const format = options.format ?? formatFromName(source);
  return format === 'csv' || format === 'tsv' || format === 'ndjson';
}

async function countLines(path: string, signal?: AbortSignal): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let lines = 0;
    let last = 10;
    for (;;) {
      if (signal?.aborted) throw signal.reason as Error;
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      lines += countLineEnds(buffer.subarray(0, bytesRead), last);
      last = buffer[bytesRead - 1]!;
    }
    return isLineEnd(last) ? lines : lines + 1;
  } finally {
    await handle.close();
  }
}

/**
 * An estimate of the rows of local CSV/TSV/NDJSON files, for a progress total: lines, less one header line per CSV
 * file. A quoted field holding new lines makes it an over-estimate; a source of another kind (stdin, URL, S3,
 * gzip, JSON, a preset that merges rows) gives undefined. One sequential pass at disk speed, memory-flat.
 */
export async function estimateRowCount(sources: readonly string[], options: CatalogOptions = {}): Promise<number | undefined> {
  if (sources.length === 0 || !sources.every((source) => countable(source, options))) return undefined;
  let total = 0;
  for (const source of sources) {
    const lines = await countLines(source, options.signal);
    const header = (options.format ?? formatFromName(source)) === 'ndjson' ? 0 : 1;
    total += Math.max(0, lines - header);
  }
  return total;
}
