import type { ForwardRequest, ForwardResult, Forwarder } from './forward.js';

/** The most body bytes waiting behind the forwards in flight: 1,000 bodies of 1 MiB would hold gigabytes. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Forwards with a bounded number in flight and a queue behind them bounded in callbacks and in bytes (a slow local
 * app must not make the receiver hold every callback in memory): a callback arriving to a full queue is reported
 * failed at once. One callback may always wait, whatever its size, so a `--max-body` above the byte bound still
 * forwards.
 */
export class ForwardQueue {
  private inFlight = 0;
  private queuedBytes = 0;
  private readonly waiting: { request: ForwardRequest; done: (result: ForwardResult) => void }[] = [];
  private idle: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly forwarder: Forwarder,
    private readonly concurrency = 8,
    private readonly maxQueued = 1_000,
    private readonly maxQueuedBytes = MAX_QUEUED_BYTES,
  ) {}

  /** Forward `request`; `done` is called once with the result. */
  push(request: ForwardRequest, done: (result: ForwardResult) => void): void {
    if (this.closed) return done({ ok: false, error: 'the receiver is stopping', ms: 0 });
    if (this.inFlight < this.concurrency) return this.start(request, done);
    if (this.waiting.length >= this.maxQueued) return done({ ok: false, error: `${this.maxQueued} forwards already waiting`, ms: 0 });
    if (this.waiting.length > 0 && this.queuedBytes + request.body.length > this.maxQueuedBytes) {
      return done({ ok: false, error: `${this.queuedBytes} bytes of forwards already waiting`, ms: 0 });
    }
    this.queuedBytes += request.body.length;
    this.waiting.push({ request, done });
  }

  private start(request: ForwardRequest, done: (result: ForwardResult) => void): void {
    this.inFlight++;
    void this.forwarder.send(request).then((result) => {
      this.inFlight--;
      done(result);
      const next = this.waiting.shift();
      if (next !== undefined) {
        this.queuedBytes -= next.request.body.length;
        this.start(next.request, next.done);
      }
      else if (this.inFlight === 0) this.idle?.();
    });
  }

  /** Refuse new forwards, give up those still queued, and wait for those under way (bounded by the forwarder's timeout). */
  async drain(): Promise<void> {
    this.closed = true;
    this.queuedBytes = 0;
    for (const { done } of this.waiting.splice(0)) done({ ok: false, error: 'the receiver stopped before sending it', ms: 0 });
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.forwarder.close();
  }
}
