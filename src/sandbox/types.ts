/** A closed range of milliseconds; each answer waits a uniformly drawn time within it. */
export interface LatencyRange {
  min: number;
  max: number;
}

/** One request the sandbox answered (or dropped), for a caller that wants to log traffic. */
export interface SandboxRequestEvent {
  method: string;
  path: string;
  /** The status sent, or `'dropped'` when the socket was destroyed instead of answering. */
  status: number | 'dropped';
  /** Time from the first byte read to the answer, in ms. */
  ms: number;
}

/** How a sandbox listens and which service it imitates. Every field is optional. */
export interface SandboxOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** The one API key accepted as `Authorization: Bearer <key>`. Default `sandbox-key`. */
  apiKey?: string;
  /** Imitate a workspace with saved Marketplace configurations (rule 1): flat requests may omit the location key and policy ids. */
  savedDefaults?: boolean;
  /** Delay before every answer on `/v1`, in ms; a number is a fixed delay. */
  latency?: number | LatencyRange;
  /** Share of listing requests (0..1) answered 500 or 503 without being processed. */
  failRate?: number;
  /** The status of injected failures; default a random choice of 500 and 503. */
  failStatus?: number;
  /** Listing requests accepted per second (a token bucket, by default with a burst of one second's worth); the rest get 429. */
  rateLimit?: number;
  /** The bucket of the rate limit: how many requests it lets through at once (a whole number >= 1). Default: one second's worth. */
  rateBurst?: number;
  /** Seconds announced in `Retry-After` on a 429. Default 1. */
  retryAfterSeconds?: number;
  /**
   * Listing requests served at once (a whole number >= 1); more wait in the queue. With a capacity the latency is
   * each request's service time, counted from its entry into service. Default: unlimited.
   */
  capacity?: number;
  /** Listing requests allowed to wait beyond `capacity` (a whole number >= 0, or Infinity); the rest get 503 at once. Default: unlimited. */
  queue?: number;
  /** Share of listing requests (0..1) processed in full and then left unanswered: the socket is destroyed. */
  dropRate?: number;
  /** Share of listing answers (0..1) delayed by `spikeMs` on top of `latency`: a latency spike. */
  spikeRate?: number;
  /** The extra delay of a latency spike, in ms. Default 2000. */
  spikeMs?: number;
  /** Seed of the fault injection, so a run can be repeated. Default: random. */
  seed?: number;
  /** Largest request body accepted; larger ones get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * A file that keeps the listings and Idempotency-Keys across restarts, as a real service does: every creation is
   * appended to it (NDJSON) before it is answered, and a sandbox started on the same file continues from it (its
   * `created` and `duplicates` count the file's history too). Default: nothing kept.
   */
  dataFile?: string;
  /**
   * Post a webhook callback here after each listing created (not after a replay): a `listing.created` event, off
   * the answering path, retried with exponential backoff on a non-2xx answer or a connection error.
   */
  webhookUrl?: string;
  /** Sign each callback with this secret (`Listings-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`). */
  webhookSecret?: string;
  /** Attempts of one callback before it is given up, the first included (1 to 20). Default 5. */
  webhookAttempts?: number;
  /** The wait before the first retry of a callback, in ms; it doubles at each retry (up to 30 s). Default 250. */
  webhookBackoffMs?: number;
  /** Called after every request (for `--verbose`); nothing is logged otherwise. */
  onRequest?: (event: SandboxRequestEvent) => void;
}

/** What the sandbox has seen, as served at `GET /_sandbox/stats`. */
export interface SandboxStats {
  /** Every request received, except those to `/_sandbox/stats`. */
  requests: number;
  /** Distinct listings created: (marketplace, SKU) pairs. */
  created: number;
  /** Answers replayed for a repeated Idempotency-Key with the same body. */
  replayed: number;
  /** Creations of a (marketplace, SKU) that already existed, without a matching Idempotency-Key. */
  duplicates: number;
  /** Requests processed but left unanswered (drop rate). */
  dropped: number;
  /** Requests refused with 429 by the rate limit. */
  throttled: number;
  /** Requests refused with 503 because capacity and queue were full (injected 503s are not counted here). */
  overloaded: number;
  /** The most listing requests held at once: in service plus waiting (without a capacity, all are in service). */
  peak_in_flight: number;
  /** The most listing requests waiting at once for a slot (counted only with a capacity set). */
  peak_queued: number;
  /** Answers sent, by status code. */
  by_status: Record<string, number>;
  /** The webhook callbacks, when a webhook URL is set. */
  webhooks?: SandboxWebhookStats;
}

/** The counts of the sandbox's webhook callbacks: `sent` = `delivered` + `given_up` + `pending`. */
export interface SandboxWebhookStats {
  /** Callbacks created, one per listing created. */
  sent: number;
  /** Callbacks answered 2xx. */
  delivered: number;
  /** Attempts answered with a non-2xx status, or not answered (connection refused, reset, timed out). */
  failed_attempts: number;
  /** Callbacks abandoned: every attempt failed, or too many were pending. */
  given_up: number;
  /** Callbacks not yet delivered nor given up: queued, being sent, or waiting to be retried. */
  pending: number;
}

/** A running sandbox. */
export interface Sandbox {
  /** Base URL, e.g. `http://127.0.0.1:4010`; the listing operation is at `${url}/v1/listings`. */
  url: string;
  /** A snapshot of the counts. */
  stats(): SandboxStats;
  /** Stop listening, end every connection and pending answer. */
  close(): Promise<void>;
}
