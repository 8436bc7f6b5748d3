import type { Readable, Writable } from 'node:stream';
import { ndjsonRecords } from '../catalog/formats/ndjson.js';
import { openStreamInput } from '../fs/named-pipe.js';
import { openOutputStream } from '../fs/output-target.js';
import { SourceError } from '../errors.js';
import type { ReceivedCallback } from './callback.js';
import { utf8Text } from './callback.js';
import { callbackHeaders } from './headers.js';
import { redactPath } from './redact-path.js';

/**
 * One line of a recording (NDJSON): the callback as received, its body kept exactly (as UTF-8 text when it is
 * valid UTF-8, else base64), so that a replay sends the same bytes.
 */
export interface RecordedCallback {
  received_at: string;
  method: string;
  /** The path with its query, credentials in the query masked. */
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
    path: redactPath(callback.path),
    headers: callbackHeaders(callback.headers),
    body_encoding: text === undefined ? 'base64' : 'utf8',
    body: text ?? callback.body.toString('base64'),
  };
}

/** The body bytes of a recorded callback. */
export function recordedBody(record: RecordedCallback): Buffer {
  return Buffer.from(record.body, record.body_encoding === 'base64' ? 'base64' : 'utf8');
}

/** The longest line of a recording read by `--replay`. */
export const MAX_RECORDING_LINE_BYTES = 64 * 1024 * 1024;

/**
 * The most of a recording waiting to be written (for a pipe whose reader stalls, or a slow disk) before callbacks
 * are refused (503, sent again later by their sender) rather than held in memory: one line of the longest a replay
 * reads may always be written.
 */
export const MAX_RECORDING_BACKLOG_BYTES = MAX_RECORDING_LINE_BYTES;

/** How long a stop waits for the recording's last lines to be taken. */
const CLOSE_WAIT_MS = 10_000;

/** Appends callbacks to an NDJSON file, one line each, in the order received. */
export class Recorder {
  private failure: Error | undefined;

  private constructor(
    readonly path: string,
    private readonly stream: Writable,
    private readonly onError: (error: Error) => void,
  ) {
    this.stream.on('error', (error) => this.fail(error));
  }

  private fail(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.onError(error);
  }

  /**
   * Open (or create, the user's alone: the callbacks are the user's data) `path` for appending; the file is opened
   * before the first callback arrives. A named pipe is written once a program reads it (a bounded wait).
   */
  static async open(path: string, onError: (error: Error) => void): Promise<Recorder> {
    return new Recorder(path, await openOutputStream(path, { role: 'recording', private: true }), onError);
  }

  /** The first write error, if any. */
  get error(): Error | undefined {
    return this.failure;
  }

  append(callback: ReceivedCallback): void {
    if (this.failure === undefined) this.stream.write(`${JSON.stringify(recordOf(callback))}\n`);
  }

  /** More than {@link MAX_RECORDING_BACKLOG_BYTES} wait to be written: a callback now would be held in memory. */
  get behind(): boolean {
    return this.stream.writableLength > MAX_RECORDING_BACKLOG_BYTES;
  }

  /**
   * Flush and close the file, within {@link CLOSE_WAIT_MS}: a pipe whose reader stopped reading would keep the
   * stop waiting for ever; its lines not taken by then are a failure of the recording.
   */
  close(): Promise<void> {
    return new Promise((resolve) => {
      const late = setTimeout(() => {
        this.fail(new Error(`${this.stream.writableLength} bytes were not taken by its reader within ${CLOSE_WAIT_MS / 1000} s`));
        this.stream.destroy();
        resolve();
      }, CLOSE_WAIT_MS);
      this.stream.end(() => {
        clearTimeout(late);
        resolve();
      });
    });
  }
}

function isRecord(value: Record<string, unknown>): value is Record<string, unknown> & RecordedCallback {
  const { headers } = value;
  const headersOk = headers !== null && typeof headers === 'object' && !Array.isArray(headers) && Object.values(headers).every((header) => typeof header === 'string');
  return typeof value.method === 'string' && typeof value.path === 'string' && typeof value.body === 'string' && (value.body_encoding === 'utf8' || value.body_encoding === 'base64') && headersOk;
}

/**
 * The largest body a listener that records may accept, so that every line it writes is one `--replay` reads: JSON
 * writes a control character of a UTF-8 body as `\u0001`, six bytes for one, and the path and headers (within
 * Node's 16 KiB of a request head, six bytes each at worst) fit in the 1 MiB kept aside.
 */
export const MAX_RECORDED_BODY_BYTES = Math.floor((MAX_RECORDING_LINE_BYTES - 1024 * 1024) / 6);

/** One line of a recording: the callback, or why the line is not one (located at its line). */
export type RecordingLine = { line: number; record: RecordedCallback } | { line: number; error: string };

/**
 * The callbacks of a recording, in order, read line by line (a recording of any size, each line bounded); a line
 * that is not a recorded callback is yielded as an error and reading goes on. A file that cannot be read is a
 * SourceError; so is a pipe no program writes to within a bounded wait (a plain open would wait for ever).
 */
export async function* readRecording(path: string): AsyncGenerator<RecordingLine> {
  let input: Readable;
  try {
    input = await openStreamInput(path);
  } catch (error) {
    throw new SourceError({ source: path }, `cannot read the recording: ${(error as Error).message}`, { cause: error });
  }
  for await (const item of ndjsonRecords(input, { source: path, maxLineBytes: MAX_RECORDING_LINE_BYTES })) {
    const line = item.location.line ?? 0;
    if ('error' in item) yield { line, error: item.error };
    else if (isRecord(item.fields)) yield { line, record: item.fields };
    else yield { line, error: 'not a recorded callback: method, path, headers, body_encoding (utf8 or base64) and body are needed' };
  }
}
