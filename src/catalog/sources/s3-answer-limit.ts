import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';

/**
 * The most of a store's answer the SDK may hold whole: a listing page (1,000 keys of at most 1 KiB, with their
 * fields) is a few MiB; an error is a few hundred bytes. The SDK reads these answers into one string before it
 * parses them, so a store that sends a gigabyte would fill memory.
 */
export const MAX_HELD_ANSWER = 16 * 1024 * 1024;
/** The time such an answer may take from its headers to its end: trickled, it would never be idle long enough to time out. */
export const HELD_ANSWER_MS = 60_000;

/** Why a store's answer was cut: found in the SDK's error (or its cause), so the message names it rather than a parse error. */
export class S3AnswerLimitError extends Error {
  override name = 'S3AnswerLimitError';
  /** The message as written: the SDK appends its own note to `message` when a parse fails on it. */
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** The limit error inside an SDK error, if the answer was cut. */
export function answerLimitOf(error: unknown): S3AnswerLimitError | undefined {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    if (at instanceof S3AnswerLimitError) return at;
  }
  return undefined;
}

function limited(body: Readable, maxBytes: number, maxMs: number): Transform {
  let seen = 0;
  const cut = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
      seen += chunk.length;
      if (seen > maxBytes) callback(new S3AnswerLimitError(`the store's answer is larger than ${maxBytes / 1024 / 1024} MiB`));
      else callback(null, chunk);
    },
  });
  const timer = setTimeout(() => cut.destroy(new S3AnswerLimitError(`the store's answer did not end within ${maxMs / 1000} s`)), maxMs);
  timer.unref();
  body.once('error', (error) => cut.destroy(error));
  cut.once('close', () => {
    clearTimeout(timer);
    body.destroy();
  });
  return body.pipe(cut);
}

/**
 * Caps every answer the SDK reads whole (a listing, any error): its size and its time. The body of a 2xx GetObject
 * is the catalog, streamed, and left alone.
 */
export function limitHeldAnswers(client: S3Client, maxBytes = MAX_HELD_ANSWER, maxMs = HELD_ANSWER_MS): void {
  const middleware: Parameters<S3Client['middlewareStack']['addRelativeTo']>[0] =
    ((next: (args: unknown) => Promise<{ response: unknown }>, context: { commandName?: string }) => async (args: unknown) => {
      const result = await next(args);
      const response = result.response as { statusCode?: number; body?: unknown };
      const streamed = context.commandName === 'GetObjectCommand' && (response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300;
      if (!streamed && response.body !== undefined && typeof (response.body as Readable).pipe === 'function') {
        response.body = limited(response.body as Readable, maxBytes, maxMs);
      }
      return result;
    }) as Parameters<S3Client['middlewareStack']['addRelativeTo']>[0];
  client.middlewareStack.addRelativeTo(middleware, { name: 'listingsHeldAnswerLimit', relation: 'after', toMiddleware: 'deserializerMiddleware' });
}
