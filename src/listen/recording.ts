import { createReadStream, type WriteStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openOutput } from '../fs/output-target.js';
import { createInterface } from 'node:readline';
import { SourceError } from '../errors.js';
import type { ReceivedCallback } from './callback.js';
import { utf8Text } from './callback.js';
import { callbackHeaders } from './headers.js';

/**
 * One line of a recording (NDJSON): the callback as received, its body kept exactly (as UTF-8 text when it is
 * valid UTF-8, else base64), so that a replay sends the same bytes.
 */
export interface RecordedCallback {
  received_at: string;
  method: string;
  path: string;
  /** The headers, without credentials and connection headers. */
  headers: Record<string, string>;
  body_encoding: 'utf8' | 'base64';
  body: string;
}

/** The line of a recording for one callback. */
export function recordOf(callback: ReceivedCallback): RecordedCallback {
  const text = utf8Text(callback.body);
  return {
    received_at: callback.receivedAt.toISOString(),
    method: callback.method,
    path: callback.path,
    headers: callbackHeaders(callback.headers),
    body_encoding: text === undefined ? 'base64' : 'utf8',
    body: text ?? callback.body.toString('base64'),
  };
}

/** The body bytes of a recorded callback. */
export function recordedBody(record: RecordedCallback): Buffer {
  return Buffer.from(record.body, record.body_encoding === 'base64' ? 'base64' : 'utf8');
}

/** Appends callbacks to an NDJSON file, one line each, in the order received. */
export class Recorder {
  private readonly stream: WriteStream;
  private failure: Error | undefined;

  private constructor(readonly path: string, handle: FileHandle, onError: (error: Error) => void) {
    this.stream = handle.createWriteStream({ encoding: 'utf8' });
    this.stream.on('error', (error) => {
      this.failure ??= error;
      onError(error);
    });
  }

  /**
   * Open (or create, the user's alone: the callbacks are the user's data) `path` for appending; the file is opened
   * before the first callback arrives.
   */
  static async open(path: string, onError: (error: Error) => void): Promise<Recorder> {
    return new Recorder(path, await openOutput(path, { role: 'recording', private: true }), onError);
  }

  /** The first write error, if any. */
  get error(): Error | undefined {
    return this.failure;
  }

  append(callback: ReceivedCallback): void {
    if (this.failure === undefined) this.stream.write(`${JSON.stringify(recordOf(callback))}\n`);
  }

  /** Flush and close the file. */
  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}

function isRecord(value: unknown): value is RecordedCallback {
  if (value === null || typeof value !== 'object') return false;
  const line = value as Record<string, unknown>;
  const headersOk = line.headers !== null && typeof line.headers === 'object' && Object.values(line.headers).every((header) => typeof header === 'string');
  return typeof line.method === 'string' && /^[A-Z]+$/i.test(line.method) && typeof line.body === 'string' && (line.body_encoding === 'utf8' || line.body_encoding === 'base64') && headersOk;
}

/** The callbacks of a recording, in order, read line by line (a recording of any size); a bad line is a SourceError. */
export async function* readRecording(path: string): AsyncGenerator<{ line: number; record: RecordedCallback }> {
  const input = createReadStream(path);
  const opened = new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new SourceError({ source: path }, `cannot read the recording: ${(error as Error).message}`, { cause: error });
  }
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      throw new SourceError({ source: path, line }, 'not a JSON line of a recording');
    }
    if (!isRecord(parsed)) throw new SourceError({ source: path, line }, 'not a recorded callback: method, headers, body_encoding (utf8 or base64) and body are needed');
    yield { line, record: parsed };
  }
}
