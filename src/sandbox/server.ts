import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn } from '../listen-on.js';
import { LISTINGS_PATH } from '../contract/index.js';
import { Admission } from './admission.js';
import { DataFile, type CreationRecord } from './data-file.js';
import { bodyDigest, IdempotencyStore } from './idempotency.js';
import { judgeListing } from './listing.js';
import { resolveSandboxOptions, type ResolvedSandboxOptions } from './options.js';
import { faultStreams } from './random.js';
import { TokenBucket } from './rate-limit.js';
import { parseOutage, type Outage } from './outage.js';
import { StatsCounter } from './stats.js';
import { WebhookSender } from './webhooks.js';
import type { Sandbox, SandboxOptions, SandboxRequestEvent, SandboxStats } from './types.js';
import { readBoundedBody } from '../http-body.js';

/** Counts, outside `/v1` so it can never collide with the service's own paths. */
export const STATS_PATH = '/_sandbox/stats';
/** Control of an outage: `POST {"ms": 5000, "status": 503}` and every listing request is answered 503 for 5 s. */
export const OUTAGE_PATH = '/_sandbox/outage';
const MAX_IDEMPOTENCY_KEY = 255;

interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const errorJson = (code: string, message: string): string => JSON.stringify({ error: { code, message } });

// Constant answers are serialised once: the sandbox must stay far faster than any client it tests.
const FIXED = {
  notFound: {
    status: 404,
    body: errorJson('not_found', `no such operation: this service serves POST ${LISTINGS_PATH} at its root, so the base URL is its address with no path`),
  },
  notAllowed: { status: 405, body: errorJson('method_not_allowed', `${LISTINGS_PATH} accepts POST only`), headers: { allow: 'POST' } },
  statsNotAllowed: { status: 405, body: errorJson('method_not_allowed', `${STATS_PATH} accepts GET only`), headers: { allow: 'GET' } },
  outageNotAllowed: { status: 405, body: errorJson('method_not_allowed', `${OUTAGE_PATH} accepts POST only`), headers: { allow: 'POST' } },
  noKey: { status: 401, body: errorJson('unauthorized', 'missing API key: send the header Authorization: Bearer <API key>') },
  wrongKey: { status: 401, body: errorJson('unauthorized', 'the API key is not valid for this workspace') },
  mediaType: { status: 415, body: errorJson('unsupported_media_type', 'Content-Type must be application/json') },
  conflict: { status: 422, body: errorJson('idempotency_key_reused', 'this Idempotency-Key was already used with a different request body') },
  overloaded: { status: 503, body: errorJson('overloaded', 'the service is at capacity and its queue is full; retry later') },
  badKey: { status: 400, body: JSON.stringify({ error: { code: 'invalid_request', message: `Idempotency-Key must have 1 to ${MAX_IDEMPOTENCY_KEY} characters`, details: [{ field: 'Idempotency-Key', message: 'has a bad length' }] } }) },
} satisfies Record<string, Answer>;

function injectedFailure(status: number): Answer {
  const [code, what] = status === 503 ? ['service_unavailable', 'temporarily unavailable'] : status === 500 ? ['internal_error', 'an internal error'] : ['injected_failure', `HTTP ${status}`];
  return { status, body: errorJson(code, `injected fault: the sandbox simulates ${what}`) };
}

/** The answer of every listing request during an outage; a 503 or 429 says when to come back. */
function outageAnswer(status: number): Answer {
  const answer: Answer = { status, body: errorJson(status === 503 ? 'service_unavailable' : status === 429 ? 'rate_limited' : 'outage', `simulated outage: the sandbox answers HTTP ${status} for now`) };
  if (status === 503 || status === 429) answer.headers = { 'retry-after': '1' };
  return answer;
}

function isJsonContentType(header: string | undefined): boolean {
  if (header === 'application/json') return true;
  return header !== undefined && (header.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json';
}

/** Every listing request passes, in order: rate limit, capacity, injected failure, key, content type, idempotency, schema. */
class SandboxHandler {
  readonly stats = new StatsCounter();
  private readonly store = new IdempotencyStore();
  private readonly random;
  private readonly bucket;
  private readonly admission;
  private readonly tooLarge: Answer;
  private readonly rateLimited: Answer;
  /** Where creations are kept across restarts, with `dataFile`. */
  data: DataFile | undefined;
  /** The callbacks of created listings, with `webhookUrl`. */
  readonly webhooks: WebhookSender | undefined;
  /** The outage asked for at `/_sandbox/outage`, while in force. */
  private outage: Outage | undefined;

  constructor(
    private readonly config: ResolvedSandboxOptions,
    private readonly onRequest: ((event: SandboxRequestEvent) => void) | undefined,
  ) {
    this.random = faultStreams(config.seed);
    this.bucket = config.rateLimit === undefined ? undefined : new TokenBucket(config.rateLimit, config.rateBurst);
    // Without a capacity every request is served at once; admission still counts the peak in flight.
    this.admission = new Admission(config.capacity ?? Infinity, config.capacity === undefined ? 0 : config.queue);
    this.tooLarge = { status: 413, body: errorJson('payload_too_large', `the body exceeds ${config.maxBodyBytes} bytes`), headers: { connection: 'close' } };
    this.rateLimited = {
      status: 429,
      body: errorJson('rate_limited', `rate limit of ${config.rateLimit} requests per second exceeded; retry after ${config.retryAfterSeconds} s`),
      headers: { 'retry-after': String(config.retryAfterSeconds) },
    };
    this.webhooks =
      config.webhookUrl === undefined
        ? undefined
        : new WebhookSender({
            url: config.webhookUrl,
            secret: config.webhookSecret,
            attempts: config.webhookAttempts,
            backoffMs: config.webhookBackoffMs,
            maxBackoffMs: 30_000,
            maxPending: 10_000,
            concurrency: 16,
            timeoutMs: 10_000,
          });
  }

  /** A creation read back from the data file: the listing and its key exist again, as before the restart. */
  restore(record: CreationRecord): void {
    if (record.key !== undefined) this.store.set(record.key, record.digest);
    this.stats.created(record.marketplace, record.sku);
  }

  snapshot(): SandboxStats {
    const stats = this.stats.snapshot(this.admission);
    if (this.webhooks !== undefined) stats.webhooks = this.webhooks.stats();
    return stats;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (path === STATS_PATH) {
      this.send(req, res, req.method === 'GET' ? { status: 200, body: JSON.stringify(this.snapshot()) } : FIXED.statsNotAllowed, started, false);
      return;
    }
    if (path === OUTAGE_PATH) return this.controlOutage(req, res, started);
    this.stats.requests++;
    // Exactly the documented path: a wrong base URL (an extra path segment, say) must show in a try-out.
    if (path !== LISTINGS_PATH) return this.deliver(req, res, FIXED.notFound, started, false);
    if (req.method !== 'POST') return this.deliver(req, res, FIXED.notAllowed, started, false);
    if (this.outage !== undefined) {
      if (Date.now() < this.outage.until) return this.outageRefusal(req, res, this.outage.status, started);
      this.outage = undefined;
    }
    if (Number(req.headers['content-length']) > this.config.maxBodyBytes) return this.deliver(req, res, this.tooLarge, started, false);
    this.readBody(req, (body) => {
      if (body === undefined) return this.deliver(req, res, this.tooLarge, started, false);
      if (this.bucket !== undefined && !this.bucket.take()) {
        this.stats.throttled++;
        return this.deliver(req, res, this.rateLimited, started, false);
      }
      this.admit(this.admission, req, res, body, started);
    });
  }

  /** `POST /_sandbox/outage {"ms", "status"}`: from now on, for `ms`, every listing request gets `status` at once. */
  private controlOutage(req: IncomingMessage, res: ServerResponse, started: number): void {
    if (req.method !== 'POST') return this.send(req, res, FIXED.outageNotAllowed, started, false);
    this.readBody(req, (body) => {
      if (body === undefined) return this.send(req, res, this.tooLarge, started, false);
      const parsed = parseOutage(body.toString('utf8'), Date.now());
      if ('error' in parsed) return this.send(req, res, { status: 400, body: errorJson('invalid_request', parsed.error) }, started, false);
      this.outage = parsed.outage;
      this.send(req, res, { status: 200, body: JSON.stringify({ until: parsed.outage.until, status: parsed.outage.status }) }, started, false);
    });
  }

  /** A listing request during an outage: answered before anything else, the body left unread. */
  private outageRefusal(req: IncomingMessage, res: ServerResponse, status: number, started: number): void {
    if (status === 503) this.stats.overloaded++;
    else if (status === 429) this.stats.throttled++;
    const answer = outageAnswer(status);
    // The body is read and dropped, unparsed, so the kept-alive connection can carry the next request.
    if (req.readableEnded || Number(req.headers['content-length'] ?? 0) === 0) this.send(req, res, answer, started, true);
    else {
      req.resume();
      req.once('end', () => this.send(req, res, answer, started, true));
      req.once('error', () => undefined);
    }
  }

  /** With a capacity: serve now, wait for a slot (FIFO), or refuse at once with 503 like a load shedder. */
  private admit(admission: Admission, req: IncomingMessage, res: ServerResponse, body: Buffer, started: number): void {
    // The answer is decided when the request enters service, so the idempotency store sees requests in service order.
    const serve = (): void => this.deliver(req, res, this.safeAnswer(req, body), started, true, admission);
    const onTurn = (): void => {
      res.off('close', leave);
      serve();
    };
    // A client gone while waiting gives up its place; one gone while in service frees its slot when its answer is due.
    const leave = (): void => {
      admission.leave(onTurn);
    };
    const verdict = admission.enter(onTurn);
    if (verdict === 'serve') serve();
    else if (verdict === 'wait') res.once('close', leave);
    else {
      this.stats.overloaded++;
      this.send(req, res, FIXED.overloaded, started, true);
    }
  }

  /** A bug in the sandbox must show up as a 500 to the client under test, not end the server. */
  private safeAnswer(req: IncomingMessage, body: Buffer): Answer {
    try {
      return this.answerListing(req, body);
    } catch (error) {
      return { status: 500, body: errorJson('sandbox_bug', `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`) };
    }
  }

  private answerListing(req: IncomingMessage, body: Buffer): Answer {
    if (this.config.failRate > 0 && this.random.fail() < this.config.failRate) {
      return injectedFailure(this.config.failStatus ?? (this.random.fail() < 0.5 ? 500 : 503));
    }
    const auth = req.headers.authorization;
    if (auth === undefined || auth.trim() === '') return FIXED.noKey;
    const space = auth.indexOf(' ');
    if (space < 0 || auth.slice(0, space).toLowerCase() !== 'bearer' || auth.slice(space + 1).trim() !== this.config.apiKey) return FIXED.wrongKey;
    if (!isJsonContentType(req.headers['content-type'])) return FIXED.mediaType;

    const rawKey = req.headers['idempotency-key'];
    const key = Array.isArray(rawKey) ? rawKey.join(', ') : rawKey;
    if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY)) return FIXED.badKey;
    const digest = key === undefined ? 0 : bodyDigest(body);
    const stored = key === undefined ? undefined : this.store.get(key);
    if (stored !== undefined && stored !== digest) return FIXED.conflict;

    const verdict = judgeListing(body.toString('utf8'), this.config.savedDefaults);
    if (!verdict.ok) return { status: 400, body: JSON.stringify(verdict.error) };
    const answer: Answer = { status: 201, body: JSON.stringify(verdict.listing) };
    if (stored !== undefined) {
      // The answer is derived from the body alone, so recomputing it replays the first one exactly.
      this.stats.replayed++;
      answer.headers = { 'idempotent-replayed': 'true' };
      return answer;
    }
    const { marketplace, sku } = verdict;
    const record: CreationRecord = key === undefined ? { digest, marketplace, sku } : { key, digest, marketplace, sku };
    // Kept before it is confirmed: a failed write is a 500 (safeAnswer) and nothing is created.
    this.data?.append(record);
    this.restore(record);
    this.webhooks?.created({ marketplace, sku, listing: verdict.listing });
    return answer;
  }

  private readBody(req: IncomingMessage, done: (body: Buffer | undefined) => void): void {
    readBoundedBody(req, this.config.maxBodyBytes, done);
  }

  /**
   * Answer after the configured latency; a processed listing request may instead be dropped unanswered. A request
   * holding a slot of `admission` releases it, exactly once, when its answer is due.
   */
  private deliver(req: IncomingMessage, res: ServerResponse, answer: Answer, started: number, droppable: boolean, admission?: Admission): void {
    const drop = droppable && answer.status < 500 && this.config.dropRate > 0 && this.random.drop() < this.config.dropRate;
    const { latency } = this.config;
    // Latency counts from the request's arrival, so reading a slow body does not add to it; with a capacity it is
    // the service time, counted from the entry into service (now), and any queue wait comes on top.
    let delay = 0;
    if (latency !== undefined) {
      const fromArrival = admission === undefined || this.config.capacity === undefined;
      delay = Math.ceil(latency.min + (latency.max - latency.min) * this.random.latency() - (fromArrival ? performance.now() - started : 0));
    }
    if (droppable && this.config.spikeRate > 0 && this.random.spike() < this.config.spikeRate) delay = Math.max(0, delay) + this.config.spikeMs;
    const finish = (): void => {
      try {
        if (!drop) return this.send(req, res, answer, started, true);
        this.stats.dropped++;
        req.socket.destroy();
        this.onRequest?.({ method: req.method ?? '', path: req.url ?? '', status: 'dropped', ms: performance.now() - started });
      } finally {
        admission?.release();
      }
    };
    if (delay > 0) setTimeout(finish, delay).unref();
    else finish();
  }

  private send(req: IncomingMessage, res: ServerResponse, answer: Answer, started: number, counted: boolean): void {
    if (counted) this.stats.answered(answer.status);
    if (res.destroyed) return;
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer.body)) };
    res.writeHead(answer.status, answer.headers === undefined ? headers : { ...headers, ...answer.headers });
    res.end(answer.body);
    this.onRequest?.({ method: req.method ?? '', path: req.url ?? '', status: answer.status, ms: performance.now() - started });
  }
}



/**
 * Connections the kernel may hold for the sandbox before it accepts them (capped by net.core.somaxconn). Node's 511
 * drops the SYNs of a client that opens a thousand connections at once, as a publish at full window does, and each
 * of those waits out TCP's 1 s retransmission: a sandbox slower to connect to than the service it imitates. (`listen`
 * and the admin endpoint, which face the network and cap their connections, keep Node's.)
 */
const SANDBOX_BACKLOG = 4096;

/** Start the contract sandbox: a real HTTP server imitating the Listing Publication Service, with fault injection. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const config = resolveSandboxOptions(options);
  const handler = new SandboxHandler(config, options.onRequest);
  if (config.dataFile !== undefined) handler.data = await DataFile.open(config.dataFile, (record) => handler.restore(record));
  const server = createServer((req, res) => handler.handle(req, res));
  // Clients keep connections for a long while; closing idle ones early only causes resets under load.
  server.keepAliveTimeout = 30_000;
  let url: string;
  try {
    url = await listenOn(server, config.host, config.port, SANDBOX_BACKLOG);
  } catch (error) {
    handler.data?.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    stats: () => handler.snapshot(),
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        handler.webhooks?.close();
        server.close((error) => {
          handler.data?.close();
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
