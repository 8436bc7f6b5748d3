import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOn } from '../listen-on.js';
import { requestPath } from '../request-path.js';
import type { WorkerMetrics } from './worker-metrics.js';

/** Whether the worker can take work now, and if not, why (one short sentence for a probe's log). */
export interface Readiness {
  ready: boolean;
  why: string;
}

export interface AdminServerOptions {
  host: string;
  port: number;
  metrics: WorkerMetrics;
  readiness: () => Readiness;
}

/** The admin endpoint of a worker, open until `close`. */
export interface AdminServer {
  /** `http://host:port`, with the port bound (0 picks a free one). */
  readonly url: string;
  close(): Promise<void>;
}

/** Probes and scrapes are small and quick: anything slower or bigger is cut, so the endpoint cannot hold the worker. */
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_CONNECTIONS = 64;
const MAX_HEADER_BYTES = 8 * 1024;

function send(response: ServerResponse, status: number, type: string, body: string, head: boolean): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  response.end(head ? undefined : body);
}

async function answer(request: IncomingMessage, response: ServerResponse, options: AdminServerOptions): Promise<void> {
  const text = 'text/plain; charset=utf-8';
  const head = request.method === 'HEAD';
  if (request.method !== 'GET' && !head) {
    response.setHeader('allow', 'GET, HEAD');
    send(response, 405, text, 'only GET and HEAD\n', false);
    return;
  }
  // Only the path is read: a query string changes nothing, and nothing of the request is echoed back.
  const path = requestPath(request.url ?? '/');
  if (path === '/healthz') return send(response, 200, text, 'ok\n', head);
  if (path === '/readyz') {
    const { ready, why } = options.readiness();
    return send(response, ready ? 200 : 503, text, `${ready ? 'ready' : 'not ready'}: ${why}\n`, head);
  }
  if (path === '/metrics') return send(response, 200, options.metrics.contentType, await options.metrics.text(), head);
  send(response, 404, text, 'not found: /healthz, /readyz and /metrics are served\n', head);
}

/**
 * Serves a stream worker's `/healthz` (the process answers), `/readyz` (in its consumer group and the service
 * usable; 503 with the reason otherwise) and `/metrics` (Prometheus exposition) on host:port, for an orchestrator's
 * probes and a scraper. GET and HEAD only, no request body read, small headers, bounded connections and time.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  // The timeouts are checked every second, not every 30 (Node's default): a client trickling its headers would hold
  // one of the few connections (and the probes waiting behind them) three times as long as the 10 s promised.
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 }, (request, response) => {
    answer(request, response, options).catch(() => {
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'metrics could not be collected\n', false);
      else response.destroy();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.keepAliveTimeout = 5_000;
  const url = await listenOn(server, options.host, options.port);
  // The endpoint never keeps the process alive on its own: the worker's end is the process's end.
  server.unref();
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The readiness of a worker from its stats: in the group, the stream running, and the breaker not open. */
export function workerReadiness(stats: { joined: boolean; breaker: string }): Readiness {
  if (!stats.joined) return { ready: false, why: 'not in the consumer group (joining, rebalancing or stopped)' };
  if (stats.breaker === 'open') return { ready: false, why: 'the service looks down (the circuit is open)' };
  return { ready: true, why: 'in the consumer group, and the service answers' };
}
