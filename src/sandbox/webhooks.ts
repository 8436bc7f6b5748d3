import { randomBytes } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { signPayload, SIGNATURE_HEADER } from '../listen/signature.js';
import { VERSION } from '../version.js';
import type { SandboxWebhookStats } from './types.js';

/** How the sandbox delivers its callbacks. */
export interface WebhookConfig {
  url: string;
  /** Sign each delivery (the `Listings-Signature` header) with this secret. */
  secret: string | undefined;
  /** Attempts of one callback before it is given up (the first included). */
  attempts: number;
  /** The wait before the first retry; each next one doubles, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Callbacks held at once (waiting, being sent, waiting to retry); more are given up at once. */
  maxPending: number;
  /** Deliveries under way at once. */
  concurrency: number;
  /** Time limit of one attempt. */
  timeoutMs: number;
}

/** What a created listing tells the callback. */
export interface CreatedListing {
  marketplace: string;
  sku: string;
  listing: Record<string, unknown>;
}

interface Delivery {
  id: string;
  body: string;
  /** Attempts made so far. */
  attempts: number;
}

/**
 * The sandbox's webhook callbacks: one `listing.created` event per listing created, posted to one URL off the
 * answering path (a slow or absent receiver never slows a listing answer), retried with exponential backoff on a
 * non-2xx answer or a connection error, a bounded number of times, with a bounded number pending.
 */
export class WebhookSender {
  private readonly counts = { sent: 0, delivered: 0, failed_attempts: 0, given_up: 0 };
  private readonly ready: Delivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly target: URL;
  private readonly agent: HttpAgent;
  private inFlight = 0;
  private pending = 0;
  private closed = false;
  private pumpScheduled = false;

  constructor(private readonly config: WebhookConfig) {
    this.target = new URL(config.url);
    this.agent = this.target.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: config.concurrency }) : new HttpAgent({ keepAlive: true, maxSockets: config.concurrency });
  }

  /** A listing was created: queue its callback. Returns at once. */
  created(created: CreatedListing): void {
    if (this.closed) return;
    this.counts.sent++;
    if (this.pending >= this.config.maxPending) {
      this.counts.given_up++;
      return;
    }
    const id = `evt_${randomBytes(12).toString('hex')}`;
    const { listing } = created;
    const event = {
      id,
      type: 'listing.created',
      created_at: new Date().toISOString(),
      data: { sku: created.sku, marketplace: created.marketplace, status: listing.status ?? 'ready', listing_id: listing.listing_id, title: listing.title },
    };
    this.pending++;
    this.ready.push({ id, body: JSON.stringify(event), attempts: 0 });
    // Sending starts after the listing's answer is on its way.
    if (!this.pumpScheduled) {
      this.pumpScheduled = true;
      setImmediate(() => {
        this.pumpScheduled = false;
        this.pump();
      });
    }
  }

  stats(): SandboxWebhookStats {
    return { ...this.counts, pending: this.pending };
  }

  /** Stop: nothing more is sent; callbacks still pending are abandoned. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.agent.destroy();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.config.concurrency) {
      const next = this.ready.shift();
      if (next === undefined) return;
      this.inFlight++;
      void this.attempt(next).then((ok) => {
        this.inFlight--;
        if (this.closed) return;
        if (ok) {
          this.counts.delivered++;
          this.pending--;
        } else {
          this.counts.failed_attempts++;
          if (next.attempts >= this.config.attempts) {
            this.counts.given_up++;
            this.pending--;
          } else this.retryLater(next);
        }
        this.pump();
      });
    }
  }

  private retryLater(delivery: Delivery): void {
    const base = Math.min(this.config.maxBackoffMs, this.config.backoffMs * 2 ** (delivery.attempts - 1));
    // Jitter (from 75% to 125%) spreads the retries of a burst, as a real sender does.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(delivery);
      this.pump();
    }, Math.round(base * (0.75 + Math.random() / 2)));
    timer.unref();
    this.timers.add(timer);
  }

  /** One attempt: true when answered 2xx. */
  private attempt(delivery: Delivery): Promise<boolean> {
    delivery.attempts++;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(delivery.body)),
      'user-agent': `listings-sandbox/${VERSION}`,
      'webhook-id': delivery.id,
    };
    // Signed at each attempt, so a retry carries a fresh timestamp.
    if (this.config.secret !== undefined) headers[SIGNATURE_HEADER.toLowerCase()] = signPayload(this.config.secret, delivery.body);
    const send = this.target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const req = send(this.target, { method: 'POST', headers, agent: this.agent, timeout: this.config.timeoutMs });
      req.on('response', (res) => {
        const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
        res.resume();
        res.on('end', () => resolve(ok));
        res.on('error', () => resolve(ok));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end(delivery.body);
    });
  }
}
