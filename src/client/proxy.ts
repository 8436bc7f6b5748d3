import type { Dispatcher, Pool } from 'undici';
import { NetworkError, TimeoutError } from '../errors.js';
import { registerSecret, redact } from '../secrets.js';
import type { ProxyRoute } from './endpoint.js';
import { loadProxySupport, PoolClass, undiciErrors } from './undici.js';
import { describeCode, errorCode } from './transport-errors.js';

/** Going through an HTTP proxy: the tunnel to the service, and what a failure at the proxy means. */

/** Reason phrases of the statuses a proxy answers a CONNECT with. */
const STATUS_TEXT: Record<number, string> = { 403: 'Forbidden', 407: 'Proxy Authentication Required', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

/** A failure at the proxy: it could not be reached (`cause`) or it answered the CONNECT with `statusCode`. */
export class ProxyHopError extends Error {
  constructor(
    readonly statusCode: number | undefined,
    cause: unknown,
  ) {
    super(statusCode === undefined ? 'the proxy could not be reached' : `the proxy answered ${statusCode} to CONNECT`, { cause });
    this.name = 'ProxyHopError';
  }
}

export function proxyHopError(error: unknown): ProxyHopError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    if (current instanceof ProxyHopError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * An undici ProxyAgent that reaches the service through a CONNECT tunnel (for an https service the proxy relays TLS
 * it cannot read), with the client's pool options, and the connect timeout on each hop: the TCP (and TLS) connection
 * to the proxy, its answer to the CONNECT, and the TLS handshake with the service through the tunnel.
 */
export function proxyAgent(route: ProxyRoute, poolOptions: Pool.Options, connectTimeoutMs: number): Dispatcher {
  const { ProxyAgentClass, connectRequest } = loadProxySupport();
  // A login in the proxy URL becomes a Proxy-Authorization header: mask it like the key.
  if (route.url.password !== '') registerSecret(decodeURIComponent(route.url.password));
  return new ProxyAgentClass({
    ...poolOptions,
    uri: route.url.href,
    proxyTunnel: true,
    proxyTls: { timeout: connectTimeoutMs },
    requestTls: { timeout: connectTimeoutMs },
    clientFactory: (origin: URL, options: object) => {
      const toProxy = new PoolClass(origin, { ...options, headersTimeout: connectTimeoutMs, bodyTimeout: connectTimeoutMs });
      // The ProxyAgent opens each tunnel with `connect()`, which only undici's index adds to dispatchers.
      const connect = async (params: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> => {
        let data: Dispatcher.ConnectData;
        try {
          data = await connectRequest.call(toProxy, params);
        } catch (error) {
          throw new ProxyHopError(undefined, error);
        }
        if (data.statusCode !== 200) {
          data.socket.on('error', () => undefined).destroy();
          throw new ProxyHopError(data.statusCode, undefined);
        }
        return data;
      };
      return Object.assign(toProxy, { connect });
    },
  });
}

/** The proxy could not be reached, or would not open a tunnel: the request never reached the service. */
export function proxyError(origin: string, proxy: ProxyRoute, hop: ProxyHopError, connectTimeoutMs: number): unknown {
  const cause = hop.cause;
  const check = `check ${proxy.from}, or name the service's host in NO_PROXY to reach it directly`;
  if (cause instanceof undiciErrors.ConnectTimeoutError || cause instanceof undiciErrors.HeadersTimeoutError) {
    return new TimeoutError(connectTimeoutMs, { cause: hop, phase: 'connect', hint: `the proxy ${proxy.shown} (from ${proxy.from}) did not open a tunnel in time: ${check}` });
  }
  if (hop.statusCode !== undefined) {
    const status = `HTTP ${hop.statusCode}${STATUS_TEXT[hop.statusCode] === undefined ? '' : ` ${STATUS_TEXT[hop.statusCode]}`}`;
    const login = proxy.url.username === '' ? `the proxy wants a login: give it in the URL of ${proxy.from}, http://user:password@host:port` : `the proxy did not accept the login in ${proxy.from}`;
    const hint = hop.statusCode === 407 ? login : check;
    // A tunnel refused is a connection refused: the service was not reached, and resending the row cannot help.
    return new NetworkError(redact(`cannot reach ${origin} through the proxy ${proxy.shown} (from ${proxy.from}): the proxy refused the tunnel (${status})`), { cause: hop, code: 'ECONNREFUSED', hint });
  }
  const code = errorCode(cause);
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new NetworkError(redact(`cannot reach the proxy ${proxy.shown} (from ${proxy.from}): ${describeCode(code) ?? detail}`), { cause: hop, code, hint: check });
}
