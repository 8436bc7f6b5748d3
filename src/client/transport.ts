import type { Dispatcher, Pool } from 'undici';
import type { ProxyRoute } from './endpoint.js';
import { proxyAgent } from './proxy.js';
import { PoolClass, undiciErrors } from './undici.js';
import { UsageError } from '../errors.js';
import { codingsOf, contentEncodingOf, decodeContent } from './content-coding.js';

/** How the client reaches the service: its connections (direct, or through a proxy) and one request on them. */

/** The most of an error answer's body that is read: enough for any message; the rest is not downloaded. */
const MAX_ERROR_BODY = 64 * 1024;
/** A listing is a few hundred bytes: a 2xx answer larger than this is not one, and is not read to its end. */
export const MAX_LISTING_BODY = 1024 * 1024;

/**
 * The connections to the service at `origin`: a Pool, or an undici ProxyAgent only when a proxy is used (its hops
 * get `connectTimeoutMs` each).
 */
export function openDispatcher(origin: string, proxy: ProxyRoute | undefined, poolOptions: Pool.Options, connectTimeoutMs: number): Dispatcher {
  return proxy === undefined ? new PoolClass(origin, poolOptions) : proxyAgent(proxy, poolOptions, connectTimeoutMs);
}

/**
 * A whole answer: status, raw headers, and the body as text: an error body only up to MAX_ERROR_BODY, a 2xx body
 * only up to MAX_LISTING_BODY (`cut` when it was longer: the rest was not read and the connection was closed).
 */
export interface RawAnswer {
  statusCode: number;
  rawHeaders: Buffer[];
  text: string;
  cut: boolean;
  /** Why the body could not be read, when it came in a content coding this client does not read (or a broken one). */
  unreadable?: string;
}

const EMPTY = Buffer.alloc(0);

/**
 * One request through `pool.dispatch` with a handler that gathers the answer itself: no response stream, no
 * parsed header object per request (only an error answer's headers are parsed), one promise. At tens of thousands
 * of requests a second this is a large share of the client's cost.
 */
export function post(pool: Dispatcher, options: Dispatcher.DispatchOptions, timeoutMs: number, signal: AbortSignal | undefined, onWritten?: () => void): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    pool.dispatch(options, new AnswerHandler(resolve, reject, timeoutMs, signal, onWritten));
  });
}

/** Why an answer's body was abandoned early: it was long enough (handled as a cut body, not as a failure). */
class BodyCut extends Error {}

class AnswerHandler implements Dispatcher.DispatchHandler {
  #statusCode = 0;
  #rawHeaders: Buffer[] = [];
  #chunks: Buffer[] | undefined;
  #size = 0;
  #abort: ((error?: Error) => void) | undefined;
  #reason: Error | undefined;
  /** Only with a signal: most requests carry none and pay for no listener. */
  #stopListening: (() => void) | undefined;
  /** When the body must have ended (performance.now()), from the headers on. */
  #deadline = 0;
  /**
   * Armed only when 1xx answers come first, or a body comes in more than one chunk: most answers are neither and pay
   * for no timer.
   */
  #timer: NodeJS.Timeout | undefined;
  #cut = false;
  #settled = false;

  constructor(
    private readonly resolve: (answer: RawAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly timeoutMs: number,
    signal: AbortSignal | undefined,
    private readonly onWritten: (() => void) | undefined,
  ) {
    if (signal === undefined) return;
    const onAbort = (): void => {
      this.#reason = signal.reason instanceof Error ? signal.reason : new undiciErrors.RequestAbortedError();
      this.#abort?.(this.#reason);
    };
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      this.#stopListening = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** undici calls it as it writes the request to a connection. */
  onConnect(abort: (error?: Error) => void): void {
    if (this.#reason !== undefined) {
      abort(this.#reason);
      return;
    }
    this.#abort = abort;
    if (this.onWritten === undefined) return;
    try {
      this.onWritten();
    } catch (cause) {
      // The caller's callback, not the connection: the request ends with a UsageError naming it.
      this.#reason = new UsageError((name) => `${name('onWritten')} threw, so the request was not sent: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, setting: { key: 'onWritten' } });
      abort(this.#reason);
    }
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx answers are informational; the final one follows. undici starts its headers timeout again at each, so a
    // server that sends them without end would hold the request for ever: the final answer is due within the time
    // limit from the first.
    if (statusCode < 200) {
      if (this.#timer === undefined) this.#arm(this.timeoutMs, () => new undiciErrors.HeadersTimeoutError());
      return true;
    }
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#statusCode = statusCode;
    this.#rawHeaders = rawHeaders;
    this.#deadline = performance.now() + this.timeoutMs;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return true;
    // undici's bodyTimeout bounds the wait between two chunks only: a body that trickles a byte at a time would
    // never end. The whole body gets the time limit from the headers on.
    if (this.#chunks !== undefined && this.#timer === undefined) {
      const left = this.#deadline - performance.now();
      if (left <= 0) return this.#stop(new undiciErrors.BodyTimeoutError());
      this.#arm(left, () => new undiciErrors.BodyTimeoutError());
    }
    (this.#chunks ??= []).push(chunk);
    this.#size += chunk.length;
    const success = this.#statusCode >= 200 && this.#statusCode < 300;
    // Enough read: the rest of a huge (or endless) body is not downloaded, the connection is closed instead.
    if (this.#size > (success ? MAX_LISTING_BODY : MAX_ERROR_BODY)) {
      this.#cut = true;
      return this.#stop(new BodyCut());
    }
    return true;
  }

  onComplete(): void {
    this.#finish();
  }

  onError(error: Error): void {
    if (error instanceof BodyCut) this.#finish();
    else this.#fail(error);
  }

  #arm(ms: number, error: () => Error): void {
    this.#timer = setTimeout(() => this.#stop(error()), ms);
    this.#timer.unref();
  }

  /** Abandon the answer: undici closes the connection and calls onError with `error`. */
  #stop(error: Error): boolean {
    if (this.#abort === undefined) this.#fail(error);
    else this.#abort(error);
    return false;
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#cleanUp();
    const chunks = this.#chunks ?? [];
    let body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    // A compressed body (a server or proxy may compress though none was asked for), decoded within the same bound.
    const encoding = body.length === 0 ? undefined : contentEncodingOf(this.#rawHeaders);
    const codings = encoding === undefined ? [] : codingsOf(encoding);
    let unreadable: string | undefined;
    if (codings.length > 0) {
      const decoded = this.#cut ? ({ tooLarge: true } as const) : decodeContent(body, codings, MAX_LISTING_BODY);
      if ('body' in decoded) body = decoded.body;
      else {
        body = EMPTY;
        if ('tooLarge' in decoded) this.#cut = true;
        else unreadable = decoded.unreadable;
      }
    }
    const success = this.#statusCode >= 200 && this.#statusCode < 300;
    const text = (success ? body : body.subarray(0, MAX_ERROR_BODY)).toString('utf8');
    this.resolve({ statusCode: this.#statusCode, rawHeaders: this.#rawHeaders, text, cut: this.#cut || (!success && body.length > MAX_ERROR_BODY), ...(unreadable === undefined ? {} : { unreadable }) });
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#cleanUp();
    this.reject(error);
  }

  #cleanUp(): void {
    this.#stopListening?.();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}
