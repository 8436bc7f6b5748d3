import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { Dispatcher } from 'undici';
import { isLoopbackHost, listingsEndpoint, proxyRoute, type Endpoint, type ProxyRoute } from '../../client/endpoint.js';
import { errorMessage, MAX_LOCATION, parseErrorBody, shortText } from '../../client/error-message.js';
import { isTlsCode } from '../../client/classify.js';
import { proxyAgent, proxyError, proxyHopError } from '../../client/proxy.js';
import { parseHeaders, PoolClass, undiciErrors } from '../../client/undici.js';
import { ListingsError } from '../../errors.js';
import { redact, redactCut, registerSecret } from '../../secrets.js';
import { VERSION } from '../../version.js';

/** The result of one check of `listings doctor` (and of the check `listings init` ends with). */
export interface Check {
  /** Short name, e.g. `connect`. */
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  message: string;
  /** What to do about a failure or a warning. */
  fix?: string;
  /** For a failure: whether the configuration (exit 2) or the service (exit 3) is at fault. */
  kind?: 'config' | 'service';
}

export interface ServiceCheckOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; without one the request goes without, and a 401 is expected. */
  apiKey: string | undefined;
  /** The variable the key comes from, for messages. */
  apiKeyEnv: string;
  allowInsecureHttp: boolean;
  /** Time limit of each network step (lookup, connect, handshake, answer), in ms. */
  timeoutMs: number;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The body of the one request the checks send: an empty listing. It has no sku, so the service must refuse it
 * with a 4xx and cannot create anything; it still goes through the endpoint and the key check, which is what is
 * checked. (An OPTIONS request would check neither the key nor the operation.)
 */
export const PROBE_BODY = '{}';

/** How far the local clock may be from the service's before the checks warn: `Date` has whole seconds. */
const CLOCK_TOLERANCE_MS = 5_000;
/** A certificate that ends sooner than this is worth a warning. */
const CERT_WARN_DAYS = 14;

const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'the name does not resolve',
  EAI_AGAIN: 'the DNS lookup failed (temporarily)',
  EAI_FAIL: 'the DNS lookup failed',
  EAI_NONAME: 'the name does not resolve',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer of the certificate is not trusted here',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet (or the local clock is behind)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  EPROTO: 'the TLS handshake failed',
};

function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  const code = codeOf(error);
  const text = code === undefined ? undefined : CODE_TEXT[code];
  if (text !== undefined) return `${text} (${code})`;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${message} (${code})`;
}

const TRUST_FIX =
  "if the service uses a private CA (or a self-signed certificate), point NODE_EXTRA_CA_CERTS at its certificate (PEM); otherwise check the host name in base_url";

/** A promise that rejects with a timeout after `ms`, for steps that have no time limit of their own. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what}: no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The host and port a connection goes to: the service's, or the proxy's. */
interface Hop {
  host: string;
  port: number;
  /** `api.example.com:443`, or `the proxy proxy:3128`. */
  shown: string;
  /** The variable that names the proxy, when the hop is one. */
  proxyFrom?: string;
}

function hopOf(url: URL, proxy: ProxyRoute | undefined): Hop {
  const target = proxy?.url ?? url;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  const address = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return proxy === undefined ? { host, port, shown: address } : { host, port, shown: `the proxy ${address}`, proxyFrom: proxy.from };
}

async function checkDns(hop: Hop, timeoutMs: number): Promise<Check> {
  if (isIP(hop.host) !== 0) return { name: 'DNS', status: 'ok', message: `${hop.host} is an IP address: nothing to resolve` };
  try {
    const addresses = await within(timeoutMs, lookup(hop.host, { all: true }), `DNS lookup of ${hop.host}`);
    const list = addresses.map((a) => a.address);
    const shown = list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
    return { name: 'DNS', status: 'ok', message: `${hop.host} resolves to ${shown}` };
  } catch (error) {
    const code = codeOf(error);
    const message = code === 'ENOTFOUND' || code === 'EAI_NONAME' ? `${hop.host} does not resolve (${code})` : `the DNS lookup of ${hop.host} failed: ${describe(error)}`;
    return { name: 'DNS', status: 'fail', kind: 'service', message, fix: 'check the host name in base_url (or in the proxy variable), and DNS on this machine' };
  }
}

function checkConnect(hop: Hop, timeoutMs: number): Promise<Check> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket: Socket = tcpConnect({ host: hop.host, port: hop.port });
    const done = (check: Check): void => {
      socket.destroy();
      resolve(check);
    };
    socket.setTimeout(timeoutMs, () => {
      done({ name: 'connect', status: 'fail', kind: 'service', message: `no TCP connection to ${hop.shown} within ${timeoutMs} ms`, fix: 'check the host and port in base_url, and that no firewall drops the connection' });
    });
    socket.once('connect', () => {
      const ms = Math.round(performance.now() - started);
      done({ name: 'connect', status: 'ok', message: `TCP connection to ${hop.shown}${socket.remoteAddress && socket.remoteAddress !== hop.host ? ` (${socket.remoteAddress})` : ''} in ${ms} ms` });
    });
    socket.once('error', (error) => {
      const code = codeOf(error);
      const refused = code === 'ECONNREFUSED';
      done({
        name: 'connect',
        status: 'fail',
        kind: 'service',
        message: refused ? `connection refused by ${hop.shown} (ECONNREFUSED): nothing listens there` : `cannot connect to ${hop.shown}: ${describe(error)}`,
        fix:
          hop.proxyFrom !== undefined
            ? `check ${hop.proxyFrom}, or name the service's host in NO_PROXY to reach it directly`
            : refused
              ? 'check the port in base_url, and that the service is up (a local sandbox: listings sandbox --port N)'
              : 'check base_url, the network, and any firewall on the way',
      });
    });
  });
}

function certificateText(cert: PeerCertificate): { text: string; daysLeft: number | undefined } {
  // A field given twice in the certificate comes as an array.
  const field = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join('+') : value);
  const subject = field(cert.subject?.CN) ?? field(cert.subject?.O) ?? '(no subject)';
  const issuer = field(cert.issuer?.CN) ?? field(cert.issuer?.O);
  const validTo = cert.valid_to ? new Date(cert.valid_to) : undefined;
  const daysLeft = validTo === undefined || Number.isNaN(validTo.getTime()) ? undefined : Math.floor((validTo.getTime() - Date.now()) / 86_400_000);
  const until = validTo === undefined || daysLeft === undefined ? '' : `, valid until ${validTo.toISOString().slice(0, 10)} (${daysLeft} days)`;
  return { text: `certificate CN=${subject}${issuer === undefined ? '' : ` issued by ${issuer}`}${until}`, daysLeft };
}

function checkTls(url: URL, hop: Hop, timeoutMs: number): Promise<Check> {
  return new Promise((resolve) => {
    const servername = isIP(hop.host) === 0 ? hop.host : undefined;
    // Not rejected here, so the certificate can be described; trust is judged from `authorized` below.
    const socket: TLSSocket = tlsConnect({ host: hop.host, port: hop.port, ...(servername === undefined ? {} : { servername }), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    const done = (check: Check): void => {
      socket.destroy();
      resolve(check);
    };
    socket.setTimeout(timeoutMs, () => {
      done({ name: 'TLS', status: 'fail', kind: 'service', message: `no TLS handshake with ${hop.shown} within ${timeoutMs} ms`, fix: `check that ${url.host} serves https on this port` });
    });
    socket.once('secureConnect', () => {
      const { text, daysLeft } = certificateText(socket.getPeerCertificate());
      const protocol = socket.getProtocol() ?? 'TLS';
      if (!socket.authorized) {
        const code = String(socket.authorizationError ?? 'UNTRUSTED');
        const reason = CODE_TEXT[code] ?? `the certificate is not trusted (${code})`;
        done({ name: 'TLS', status: 'fail', kind: 'service', message: `${reason}: ${text}`, fix: TRUST_FIX });
      } else if (daysLeft !== undefined && daysLeft < CERT_WARN_DAYS) {
        done({ name: 'TLS', status: 'warn', message: `${protocol}, ${text}: it expires soon`, fix: "tell the service's operators; runs will fail once it has expired" });
      } else {
        done({ name: 'TLS', status: 'ok', message: `${protocol}, ${text}` });
      }
    });
    socket.once('error', (error: Error) => {
      const code = codeOf(error);
      const plain = code === 'EPROTO' || code === 'ECONNRESET' || error.message.includes('wrong version number');
      done({
        name: 'TLS',
        status: 'fail',
        kind: 'service',
        message: `TLS handshake with ${hop.shown} failed: ${describe(error)}`,
        fix: plain ? `does ${url.host} speak plain http? then base_url starts with http://` : code !== undefined && isTlsCode(code) ? TRUST_FIX : 'check base_url',
      });
    });
  });
}

/** The answer to the probe: status, headers and the start of the body. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Local time (ms since the epoch) half-way between sending and the headers: when the service's `Date` was taken. */
  localMs: number;
  ms: number;
}

/** The most of the probe's answer read: its message is in the first few kilobytes; the rest is not downloaded. */
const MAX_PROBE_BODY = 16 * 1024;

/** Why the probe's answer was abandoned once enough of it was read (not a failure). */
class EnoughRead extends Error {}

/**
 * The probe: its answer is read up to MAX_PROBE_BODY, then the connection is closed, and the whole body must come
 * within `timeoutMs` of the headers (undici's bodyTimeout only bounds the wait between two chunks): a body that never
 * ends, fast or a byte at a time, cannot keep the check waiting.
 */
function send(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, timeoutMs: number): Promise<Answer> {
  const sent = Date.now();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: Answer['headers'] = {};
    let localMs = sent;
    let ms = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    let abort: ((error: Error) => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error !== undefined && !(error instanceof EnoughRead)) return reject(error);
      const text = Buffer.concat(chunks).toString('utf8');
      // Read only so far: a key the server echoed across that end must not be shown in part.
      resolve({ status, headers, text: error instanceof EnoughRead ? redactCut(text) : text, localMs, ms });
    };
    const stop = (error: Error): boolean => {
      if (abort === undefined) finish(error);
      else abort(error);
      return false;
    };
    const handler: Dispatcher.DispatchHandler = {
      onConnect: (abortRequest) => {
        abort = abortRequest;
      },
      onHeaders(statusCode, rawHeaders) {
        if (statusCode < 200) return true;
        status = statusCode;
        headers = parseHeaders(rawHeaders);
        localMs = (sent + Date.now()) / 2;
        ms = Math.round(performance.now() - started);
        timer = setTimeout(() => stop(new undiciErrors.BodyTimeoutError()), timeoutMs);
        timer.unref();
        return true;
      },
      onData(chunk) {
        if (settled) return true;
        chunks.push(chunk);
        size += chunk.length;
        return size < MAX_PROBE_BODY ? true : stop(new EnoughRead());
      },
      onComplete: () => finish(),
      onError: finish,
    };
    dispatcher.dispatch(options, handler);
  });
}

function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What the answer to an empty listing says about the endpoint and the key. */
function judgeAnswer(answer: Answer, endpoint: Endpoint, options: ServiceCheckOptions): Check {
  const { status } = answer;
  const what = `POST ${endpoint.path} with an empty listing (${PROBE_BODY}) answered ${status} in ${answer.ms} ms`;
  const said = (): string => redact(errorMessage(status, parseErrorBody(redact(answer.text))));
  if (status === 401 || status === 403) {
    if (options.apiKey === undefined) return { name: 'request', status: 'warn', message: `${what}: the service answers, and wants a key (none was sent)`, fix: `export ${options.apiKeyEnv}=<key from the dashboard>` };
    return { name: 'request', status: 'fail', kind: 'service', message: `${what}: the key in ${options.apiKeyEnv} was rejected (${said()})`, fix: `check that ${options.apiKeyEnv} holds a key of this workspace, for this base_url` };
  }
  if (status === 404 || status === 405 || status === 501) {
    return { name: 'request', status: 'fail', kind: 'service', message: `${what}: there is no listing operation at ${endpoint.origin}${endpoint.path}`, fix: 'check base_url: the base address of the service, without /v1/listings' };
  }
  if (status >= 300 && status < 400) {
    const location = header(answer.headers, 'location');
    return { name: 'request', status: 'fail', kind: 'service', message: `${what}: redirected${location === undefined ? '' : ` to ${shortText(redact(location), MAX_LOCATION)}`} (never followed: the key would go there)`, fix: 'set base_url to the final address' };
  }
  if (status === 408 || status === 429 || status === 502 || status === 503 || status === 504) {
    return { name: 'request', status: 'warn', message: `${what}: the service (or a proxy in front of it) is busy; runs slow down for it`, fix: 'try again later: nothing is wrong with the setup as far as this shows' };
  }
  if (status >= 500) return { name: 'request', status: 'fail', kind: 'service', message: `${what}: ${said()}`, fix: "the service failed: try again later, or tell the service's operators" };
  if (status >= 200 && status < 300) {
    return { name: 'request', status: 'warn', message: `${what}: the service accepted a listing without fields, which the contract does not expect`, fix: "tell the service's operators" };
  }
  const key = options.apiKey === undefined ? 'no key was sent' : 'the key is accepted';
  return { name: 'request', status: 'ok', message: `${what}: the listing operation is there, ${key}, and an empty listing is refused, as it should be` };
}

function checkClock(answer: Answer): Check {
  const date = header(answer.headers, 'date');
  const server = date === undefined ? Number.NaN : Date.parse(date);
  if (Number.isNaN(server)) return { name: 'clock', status: 'warn', message: 'the answer carries no Date header: the clock was not compared', fix: 'nothing to do unless times in reports look wrong' };
  // `Date` is truncated to the second: the service's time is somewhere in the second after it.
  const skew = server + 500 - answer.localMs;
  const seconds = Math.round(Math.abs(skew) / 1000);
  if (Math.abs(skew) <= CLOCK_TOLERANCE_MS) return { name: 'clock', status: 'ok', message: `the local clock is within ${Math.max(1, seconds)} s of the service's (its Date header)` };
  return {
    name: 'clock',
    status: 'warn',
    message: `the local clock is ${seconds} s ${skew > 0 ? 'behind' : 'ahead of'} the service's (its Date header: ${shortText(date ?? '', 100)})`,
    fix: 'turn on time synchronisation (e.g. timedatectl set-ntp true): Retry-After dates, certificate validity and the times in reports depend on it',
  };
}

async function checkRequest(endpoint: Endpoint, proxy: ProxyRoute | undefined, options: ServiceCheckOptions): Promise<{ check: Check; answer?: Answer }> {
  const { timeoutMs } = options;
  const poolOptions = { connections: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs };
  const dispatcher: Dispatcher = proxy === undefined ? new PoolClass(endpoint.origin, poolOptions) : proxyAgent(proxy, poolOptions, timeoutMs);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': `listings-cli/${VERSION} (doctor)` };
  if (options.apiKey !== undefined) {
    registerSecret(options.apiKey);
    headers.authorization = `Bearer ${options.apiKey}`;
  }
  try {
    const answer = await send(dispatcher, { origin: endpoint.origin, path: endpoint.path, method: 'POST', headers, body: PROBE_BODY }, timeoutMs);
    return { check: judgeAnswer(answer, endpoint, options), answer };
  } catch (error) {
    const hop = proxy === undefined ? undefined : proxyHopError(error);
    if (proxy !== undefined && hop !== undefined) {
      const failure = proxyError(endpoint.origin, proxy, hop, timeoutMs);
      const message = failure instanceof Error ? failure.message : String(failure);
      return { check: { name: 'request', status: 'fail', kind: 'service', message, ...(failure instanceof ListingsError && failure.hint !== undefined ? { fix: failure.hint } : {}) } };
    }
    const timedOut = error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError || error instanceof undiciErrors.ConnectTimeoutError;
    const message = timedOut ? `POST ${endpoint.path}: no answer within ${timeoutMs} ms` : `POST ${endpoint.path} got no answer: ${describe(error)}`;
    const code = codeOf(error);
    const closed = code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
    const fix =
      code !== undefined && isTlsCode(code)
        ? TRUST_FIX
        : timedOut
          ? 'the service accepts connections but does not answer: check base_url, or try again later'
          : closed && endpoint.origin.startsWith('http:')
            ? 'the connection was closed without an answer: if the service speaks https, base_url starts with https://'
            : 'check base_url, and that the service is up';
    return { check: { name: 'request', status: 'fail', kind: 'service', message: redact(message), fix } };
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

const skipped = (name: string, why: string): Check => ({ name, status: 'skip', message: `not checked: ${why}` });

/**
 * Whether the service at `baseUrl` can be used: the name resolves, a connection opens, the TLS certificate is
 * trusted (and not about to expire), and the listing operation answers an empty listing with a 4xx; then the local
 * clock against the answer's `Date`. Sends exactly one request (see PROBE_BODY), creates nothing. Through a proxy
 * (HTTPS_PROXY and friends, as the client reads them) the lookup and connection are the proxy's, and the TLS
 * handshake is the request's own. Each step is only taken when the one before it passed.
 */
export async function checkService(options: ServiceCheckOptions): Promise<Check[]> {
  const checks: Check[] = [];
  let endpoint: Endpoint;
  let proxy: ProxyRoute | undefined;
  try {
    endpoint = listingsEndpoint(options.baseUrl, { allowInsecureHttp: options.allowInsecureHttp });
    proxy = proxyRoute(endpoint.origin, { allowInsecureHttp: options.allowInsecureHttp, ...(options.env === undefined ? {} : { env: options.env }) });
  } catch (error) {
    const hint = error instanceof ListingsError ? error.hint : undefined;
    return [{ name: 'base URL', status: 'fail', kind: 'config', message: describe(error), ...(hint === undefined ? {} : { fix: hint }) }];
  }
  const url = new URL(endpoint.origin);
  const hop = hopOf(url, proxy);
  if (proxy !== undefined) checks.push({ name: 'proxy', status: 'ok', message: `requests go through the proxy ${proxy.shown} (from ${proxy.from}); the next checks reach it` });
  const rest = ['DNS', 'connect', 'TLS', 'request', 'clock'];
  const stop = (why: string): Check[] => [...checks, ...rest.slice(checks.filter((c) => c.name !== 'proxy').length).map((name) => skipped(name, why))];

  checks.push(await checkDns(hop, options.timeoutMs));
  if (checks.at(-1)?.status === 'fail') return stop('the name does not resolve');
  checks.push(await checkConnect(hop, options.timeoutMs));
  if (checks.at(-1)?.status === 'fail') return stop('no connection');
  if (url.protocol === 'http:') {
    checks.push(
      isLoopbackHost(url.hostname)
        ? { name: 'TLS', status: 'ok', message: 'not used: plain http to a loopback host stays on this machine' }
        : { name: 'TLS', status: 'warn', message: `not used: plain http to ${url.host} (allowed by --allow-insecure-http): the key crosses the network in clear`, fix: 'use an https base_url' },
    );
  } else if (proxy !== undefined) {
    checks.push({ name: 'TLS', status: 'ok', message: `negotiated inside the proxy's tunnel by the request below (the proxy cannot read it)` });
  } else {
    checks.push(await checkTls(url, hop, options.timeoutMs));
    if (checks.at(-1)?.status === 'fail') return stop('the TLS handshake failed');
  }
  const { check, answer } = await checkRequest(endpoint, proxy, options);
  checks.push(check);
  checks.push(answer === undefined ? skipped('clock', 'no answer') : checkClock(answer));
  return checks;
}
