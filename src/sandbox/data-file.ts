import { closeSync, createReadStream, ftruncateSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ConfigError } from '../errors.js';

/** One listing creation, as a line of the data file. */
export interface CreationRecord {
  /** The Idempotency-Key it was created under; absent when the request carried none. */
  key?: string;
  /** The digest of the body that created it (see idempotency.ts). */
  digest: number;
  marketplace: string;
  sku: string;
}

function parseRecord(line: string): CreationRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { key, digest, marketplace, sku } = value as Record<string, unknown>;
  if (typeof digest !== 'number' || typeof marketplace !== 'string' || typeof sku !== 'string') return undefined;
  if (key !== undefined && typeof key !== 'string') return undefined;
  return key === undefined ? { digest, marketplace, sku } : { key, digest, marketplace, sku };
}

/** The byte length of the file up to its last newline: what a kill mid-write leaves whole. */
function wholeLength(fd: number): number {
  const { size } = fstatSync(fd);
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const read = readSync(fd, chunk, 0, end - start, start);
    const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}

/**
 * The sandbox's memory kept on disk, so that a sandbox restarted on the same file continues as a real service
 * would: an append-only NDJSON file, one line per listing created (its key, body digest, marketplace and SKU).
 * Loading replays the lines in order, which rebuilds the listings, the idempotency keys and the created and
 * duplicate counts. A line is written (handed to the OS) before the creation is answered, so a sandbox killed
 * with SIGKILL has kept every listing it confirmed; a line torn by the kill is cut off when the file is opened.
 */
export class DataFile {
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly path: string,
  ) {}

  /** Read every creation recorded in `path` (a missing file is empty), then open it for appending. */
  static async open(path: string, onRecord: (record: CreationRecord) => void): Promise<DataFile> {
    let fd: number;
    try {
      fd = openSync(path, 'a+', 0o600);
    } catch (error) {
      throw new ConfigError(`cannot open the sandbox data file ${path}: ${(error as Error).message}`, { cause: error });
    }
    try {
      const whole = wholeLength(fd);
      if (whole > 0) {
        const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8', start: 0, end: whole - 1 }), crlfDelay: Infinity });
        let number = 0;
        for await (const line of lines) {
          number++;
          if (line === '') continue;
          const record = parseRecord(line);
          if (record === undefined) {
            throw new ConfigError(`${path}:${number} is not a sandbox data record`, {
              hint: (name) => `give ${name('dataFile')} a file of its own: the sandbox appends to it and reads it back`,
              setting: { key: 'dataFile', value: path },
            });
          }
          onRecord(record);
        }
      }
      // A line torn by a kill mid-write would swallow the next one.
      if (fstatSync(fd).size > whole) ftruncateSync(fd, whole);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new DataFile(fd, path);
  }

  /** Append one creation; throws when the write fails (the creation must then not be confirmed). */
  append(record: CreationRecord): void {
    // A closed descriptor's number may already belong to another file.
    if (this.closed) throw new Error('the sandbox is closed');
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
