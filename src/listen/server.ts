import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn } from '../listen-on.js';
import { ConfigError } from '../errors.js';
import { summarize, type CallbackSummary, type ReceivedCallback } from './callback.js';
import { eventKeys, RecentIds } from './dedupe.js';
import { Forwarder } from './forward.js';
import { ForwardQueue } from './forward-queue.js';
import { callbackHeaders } from './headers.js';
import { MAX_JSON_DEPTH } from '../json-text.js';
import { isLoopbackHost } from './loopback.js';
import { resolveListenOptions, type ResolvedListenOptions } from './options.js';
import { Recorder } from './recording.js';
import { verifySignature } from './signature.js';
import type { CallbackEvent, ListenEvent, ListenOptions, ListenStats, Listener, RejectReason } from './types.js';
import { readBoundedBody } from '../http-body.js';
import { requestPath } from '../request-path.js';

const json = (value: unknown): string => JSON.stringify(value);
const ACCEPTED = json({ received: true });
const DUPLICATE = json({ received: true, duplicate: true });
/** How each refusal is answered: status, error code, message. */
const REFUSED: Record<RejectReason, { status: number; code: string; message: string }> = {
  missing: { status: 401, code: 'invalid_signature', message: 'the signature header is missing' },
  malformed: { status: 401, code: 'invalid_signature', message: 'the signature header is not of the form t=<unix seconds>,v1=<hex>' },
  expired: { status: 401, code: 'invalid_signature', message: 'the signature timestamp is outside the tolerance' },
  mismatch: { status: 401, code: 'invalid_signature', message: 'the signature does not match the body' },
  too_large: { status: 413, code: 'payload_too_large', message: 'the body is too large' },
  too_deep: { status: 400, code: 'too_deep', message: `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels` },
  wrong_path: { status: 404, code: 'not_found', message: 'no callbacks are received at this path' },
  wrong_method: { status: 405, code: 'method_not_allowed', message: 'callbacks are received by POST or PUT' },
  recording_behind: { status: 503, code: 'recording_behind', message: 'the recording is not keeping up: send it again later' },
};

/**
 * The methods a callback comes with, and the only ones a replay sends: anything else (DELETE, TRACE, GET...) is
 * never received, recorded or forwarded, or anyone reaching the port could send the app behind it any method.
 */
const RECEIVED_METHODS = new Set(['POST', 'PUT']);

/** `/` takes every path; `/hooks` takes `/hooks` and `/hooks/...`. */
function pathMatches(wanted: string, path: string): boolean {
  if (wanted === '/') return true;
  const base = wanted.endsWith('/') ? wanted.slice(0, -1) : wanted;
  return path === base || path.startsWith(`${base}/`);
}

class ListenHandler {
  readonly counts: ListenStats = { received: 0, rejected: 0, duplicates: 0, forwarded: 0, forward_failed: 0 };
  private readonly ids;
  private seq = 0;
  queue: ForwardQueue | undefined;
  recorder: Recorder | undefined;

  constructor(
    private readonly config: ResolvedListenOptions,
    private readonly emit: (event: ListenEvent) => void,
  ) {
    // Up to two keys an event (eventKeys): the last `dedupeCapacity` events are remembered, whichever they have.
    this.ids = new RecentIds(config.dedupeCapacity * 2);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const receivedAt = new Date();
    const path = req.url ?? '/';
    const callback: ReceivedCallback = { receivedAt, method: req.method ?? 'POST', path, headers: req.headers, body: Buffer.alloc(0) };
    if (!RECEIVED_METHODS.has(callback.method)) return this.refuse(res, callback, 'wrong_method');
    if (!pathMatches(this.config.path, requestPath(path))) return this.refuse(res, callback, 'wrong_path');
    if (Number(req.headers['content-length']) > this.config.maxBodyBytes) return this.refuse(res, callback, 'too_large');
    readBoundedBody(req, this.config.maxBodyBytes, (body) => {
      if (body === undefined) this.refuse(res, callback, 'too_large');
      else this.received({ ...callback, body }, res);
    });
  }

  private received(callback: ReceivedCallback, res: ServerResponse): void {
    const { secret } = this.config;
    let signedAt: number | undefined;
    if (secret !== undefined) {
      const raw = callback.headers[this.config.signatureHeader.toLowerCase()];
      const header = Array.isArray(raw) ? raw.join(',') : raw;
      const verdict = verifySignature(header, callback.body, secret, { toleranceSeconds: this.config.toleranceSeconds });
      if (!verdict.ok) return this.refuse(res, callback, verdict.reason);
      signedAt = verdict.timestamp;
    }
    const summary = summarize(callback);
    if (summary.tooDeep === true) return this.refuse(res, callback, 'too_deep', summary);
    // Before its id is remembered: the redelivery the 503 asks for must not be taken for a duplicate.
    if (this.recorder?.behind === true) return this.refuse(res, callback, 'recording_behind', summary);
    const seq = ++this.seq;
    if (this.ids.seenAny(eventKeys(summary.id, callback.body, signedAt))) {
      this.counts.duplicates++;
      this.answer(res, 200, DUPLICATE);
      this.emit({ type: 'callback', seq, callback, summary, outcome: 'duplicate', status: 200, forwarding: false });
      return;
    }
    this.counts.received++;
    this.recorder?.append(callback);
    this.answer(res, 200, ACCEPTED);
    const { queue } = this;
    this.emit({ type: 'callback', seq, callback, summary, outcome: 'accepted', status: 200, forwarding: queue !== undefined });
    queue?.push({ method: callback.method, headers: callbackHeaders(callback.headers), body: callback.body }, (result) => {
      if (result.ok) this.counts.forwarded++;
      else this.counts.forward_failed++;
      this.emit({ type: 'forward', seq, result });
    });
  }

  private refuse(res: ServerResponse, callback: ReceivedCallback, reason: RejectReason, summary: CallbackSummary = summarize(callback)): void {
    this.counts.rejected++;
    const { status, code, message } = REFUSED[reason];
    // A body too large, or sent with a method not received, is not read: the connection cannot carry another request.
    this.answer(res, status, json({ error: { code, message } }), status === 413 || status === 405);
    const event: CallbackEvent = { type: 'callback', seq: ++this.seq, callback, summary, outcome: 'rejected', reason, status, forwarding: false };
    this.emit(event);
  }

  private answer(res: ServerResponse, status: number, body: string, close = false): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (close) headers.connection = 'close';
    if (status === 405) headers.allow = 'POST, PUT';
    if (status === 503) headers['retry-after'] = '1';
    res.writeHead(status, headers);
    res.end(body);
  }
}


/**
 * Receive webhook callbacks: verify (when a secret is given), de-duplicate by event id, answer 2xx, record and
 * forward them, and report each through `onEvent`. Never prints.
 */
export async function startListener(options: ListenOptions = {}): Promise<Listener> {
  const config = resolveListenOptions(options);
  const emit = options.onEvent ?? (() => undefined);
  const handler = new ListenHandler(config, emit);
  if (config.recordFile !== undefined) {
    try {
      handler.recorder = await Recorder.open(config.recordFile, (error) => emit({ type: 'record_error', message: error.message }));
    } catch (error) {
      // openOutput's own refusals already name the recording.
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`cannot write the recording ${config.recordFile}: ${(error as Error).message}`, { cause: error });
    }
  }
  if (config.forwardTo !== undefined) handler.queue = new ForwardQueue(new Forwarder(config.forwardTo));
  const timeoutMs = config.requestTimeoutSeconds * 1000;
  // A client that trickles its bytes (slowloris) or holds a connection idle is cut off within the timeout, checked
  // every second rather than Node's 30; the connection cap bounds the sockets (and memory) a crowd of them holds.
  const server = createServer(
    { headersTimeout: timeoutMs, requestTimeout: timeoutMs, keepAliveTimeout: Math.min(5_000, timeoutMs), connectionsCheckingInterval: 1_000 },
    (req, res) => handler.handle(req, res),
  );
  server.maxConnections = config.maxConnections;
  let base: string;
  try {
    base = await listenOn(server, config.host, config.port);
  } catch (error) {
    await handler.recorder?.close();
    throw error;
  }
  const bound = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `${base}${config.path}`,
    address: { host: bound.address, port: bound.port },
    loopback: isLoopbackHost(bound.address),
    stats: () => ({ ...handler.counts }),
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await handler.queue?.drain();
        await handler.recorder?.close();
      })();
      return closing;
    },
  };
}
