import type { Dispatcher } from 'undici';
import type { RawAnswer } from './transport.js';

/**
 * The connections of the first tier: the window the adaptive limiter holds on a fast service (FAST_SERVICE_WINDOW in
 * src/publish/flow/adaptive-limit.ts), so a run at that window keeps as many connections as `--concurrency 64` does.
 * With a first tier of 512 the same run kept 128 (see below why a pool opens more than it has requests) and took
 * about a tenth more CPU per row than `--concurrency 64`; a larger window (a slower service) fills the second tier.
 */
export const FIRST_TIER = 64;

/**
 * Up to `connections` connections to the service, in two tiers: a dispatcher of up to {@link FIRST_TIER}, and one for
 * the rest, opened when first needed. undici's Pool opens a new connection whenever a request finds none free, and a
 * connection that has just answered is free again only a turn of the event loop later: with room for 2,048, a run
 * that kept 512 in flight opened 787-835 connections (each about 0.8 ms of CPU, and one more to scan on every request),
 * where a pool capped at 512 waits for that turn instead. A request goes to the first tier while fewer than
 * FIRST_TIER are in flight there, so the second opens only for a window larger than that (a slow service).
 */
export class ConnectionTiers {
  readonly #open: (connections: number) => Dispatcher;
  readonly #first: Dispatcher;
  readonly #firstTier: number;
  /** The connections of the second tier; 0 when the first holds them all. */
  readonly #rest: number;
  #second: Dispatcher | undefined;
  #inFirst = 0;

  constructor(connections: number, open: (connections: number) => Dispatcher, firstTier = FIRST_TIER) {
    this.#open = open;
    this.#firstTier = firstTier;
    this.#first = open(Math.min(connections, firstTier));
    this.#rest = Math.max(0, connections - firstTier);
  }

  /** One request, `send` on the dispatcher of the tier it goes to. */
  send(send: (dispatcher: Dispatcher) => Promise<RawAnswer>): Promise<RawAnswer> {
    if (this.#rest === 0) return send(this.#first);
    if (this.#inFirst >= this.#firstTier) return send((this.#second ??= this.#open(this.#rest)));
    this.#inFirst++;
    return send(this.#first).then(this.#answeredFirst, this.#failedFirst);
  }

  readonly #answeredFirst = (answer: RawAnswer): RawAnswer => {
    this.#inFirst--;
    return answer;
  };

  readonly #failedFirst = (error: unknown): never => {
    this.#inFirst--;
    throw error;
  };

  async close(): Promise<void> {
    await Promise.all([this.#first.close(), this.#second?.close()]);
  }

  async destroy(): Promise<void> {
    await Promise.all([this.#first.destroy(), this.#second?.destroy()]);
  }
}
