import type { FileHandle } from 'node:fs/promises';
import { openOutput } from '../fs/output-target.js';
import { redact } from '../secrets.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { StreamMessage } from './message-draft.js';

/** One dead-lettered message: why it could not be published, and the message itself, to fix and send again. */
export interface DeadLetter {
  topic: string;
  partition: number;
  offset: number;
  /** The message key as text (UTF-8), when it had one. */
  key?: string;
  timestamp: number;
  /** The marketplace of the listing that failed (a message fanned out to several has a letter per failed one). */
  marketplace?: string;
  outcome: 'failed' | 'invalid';
  reason: string;
  status?: number;
  issues?: Array<{ path: string; message: string }>;
  /** The original value: UTF-8 text, or base64 when it was not text (`value_encoding`). */
  value: string | null;
  value_encoding: 'utf8' | 'base64';
  dead_lettered_at: string;
}

/** Where dead letters go. `flush` returns once everything written so far is durable; the offsets wait for it. */
export interface DeadLetterSink {
  write(letter: DeadLetter): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
  /** For messages: the file path or kafka:// address. */
  readonly name: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(buffer: Buffer | null): { value: string | null; encoding: 'utf8' | 'base64' } {
  if (buffer === null) return { value: null, encoding: 'utf8' };
  try {
    return { value: utf8.decode(buffer), encoding: 'utf8' };
  } catch {
    return { value: buffer.toString('base64'), encoding: 'base64' };
  }
}

/** The dead letter of a message whose outcome was `failed` or `invalid`. */
export function deadLetterOf(message: StreamMessage, outcome: RowOutcome, now: Date): DeadLetter {
  const value = text(message.value);
  const key = message.key === null ? undefined : text(message.key);
  const reason = outcome.outcome === 'invalid' ? 'invalid' : (outcome.reason ?? 'failed');
  const letter: DeadLetter = {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    ...(key?.value == null ? {} : { key: key.value }),
    timestamp: message.timestamp,
    ...(outcome.marketplace === undefined ? {} : { marketplace: outcome.marketplace }),
    outcome: outcome.outcome === 'invalid' ? 'invalid' : 'failed',
    reason: redact(outcome.error === undefined ? reason : `${reason}: ${outcome.error}`),
    ...(outcome.httpStatus === undefined ? {} : { status: outcome.httpStatus }),
    ...(outcome.issues === undefined ? {} : { issues: outcome.issues.map((issue) => ({ path: issue.path, message: redact(issue.message) })) }),
    value: value.value,
    value_encoding: value.encoding,
    dead_lettered_at: now.toISOString(),
  };
  return letter;
}

/** Lines held before a flush is forced, so a storm of bad messages cannot fill memory. */
const FLUSH_AT = 1000;

/** Dead letters appended to an NDJSON file; a flush writes and syncs them (fdatasync) before offsets move on. */
export class FileDeadLetters implements DeadLetterSink {
  readonly #file: FileHandle;
  #lines: string[] = [];
  #flushing: Promise<void> = Promise.resolve();

  private constructor(readonly name: string, file: FileHandle) {
    this.#file = file;
  }

  static async open(path: string): Promise<FileDeadLetters> {
    return new FileDeadLetters(path, await openOutput(path, { role: 'dead-letter file', private: true }));
  }

  async write(letter: DeadLetter): Promise<void> {
    this.#lines.push(`${JSON.stringify(letter)}\n`);
    if (this.#lines.length >= FLUSH_AT) await this.flush();
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#lines.length === 0) return;
      const lines = this.#lines;
      this.#lines = [];
      await this.#file.appendFile(lines.join(''));
      await this.#file.datasync();
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.#file.close();
    }
  }
}
