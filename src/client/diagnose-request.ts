import { parseHeaders, undiciErrors } from './undici.js';
import { isTlsCode } from './classify.js';
import { codeOf, describe, TRUST_FIX, type Check, type DiagnoseOptions } from './diagnose-check.js';
import type { Endpoint, ProxyRoute } from './endpoint.js';
import { errorMessage, MAX_LOCATION, parseErrorBody, shortText } from './error-message.js';
import { proxyError, proxyHopError } from './proxy.js';
import { openDispatcher, post } from './transport.js';
import { isNotHttp, notHttpHint } from './transport-errors.js';
import { ListingsError } from '../errors.js';
import { redact, redactCut, registerSecret } from '../secrets.js';
import { VERSION } from '../version.js';
import { parseHttpDate } from '../http-date.js';

/** The step of a diagnosis that asks the service: one request that creates nothing, its answer, and the clock. */

/**
 * The body of the one request the checks send: an empty listing. It has no sku, so the service must refuse it
 * with a 4xx and cannot create anything; it still goes through the endpoint and the key check, which is what is
 * checked. (An OPTIONS request would check neither the key nor the operation.)
 */
export const PROBE_BODY = '{}';

/** How far the local clock may be from the service's before the checks warn: `Date` has whole seconds. */
const CLOCK_TOLERANCE_MS = 5_000;

/** The answer to the probe: status, headers and the start of the body. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Local time (ms since the epoch) half-way between sending and the answer: when the service's `Date` was taken. */
  localMs: number;
  ms: number;
}

function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What the answer to an empty listing says about the endpoint and the key. */
function judgeAnswer(answer: Answer, endpoint: Endpoint, options: DiagnoseOptions): Check {
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
  if (status === 304) {
    // Not a redirect (it names no address): the answer to a conditional request, which this POST was not.
    const answered = `POST ${endpoint.path} with an empty listing (${PROBE_BODY}) answered 304 Not Modified in ${answer.ms} ms`;
    return { name: 'request', status: 'fail', kind: 'service', message: `${answered}, which is no answer to this request: a POST is not a conditional request`, fix: 'check base_url: a cache or proxy in front of the service may be answering for it' };
  }
  if (status >= 300 && status < 400) {
    const location = header(answer.headers, 'location');
    if (location === undefined) {
      return { name: 'request', status: 'fail', kind: 'service', message: `${what}: a redirect that names no address (no Location header)`, fix: 'check base_url: something in front of the service answers for it' };
    }
    return { name: 'request', status: 'fail', kind: 'service', message: `${what}: redirected to ${shortText(redact(location), MAX_LOCATION)} (never followed: the key would go there)`, fix: 'set base_url to the final address' };
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

export function checkClock(answer: Answer): Check {
  const date = header(answer.headers, 'date');
  if (date === undefined) return { name: 'clock', status: 'warn', message: 'the answer carries no Date header: the clock was not compared', fix: 'nothing to do unless times in reports look wrong' };
  const server = parseHttpDate(date, answer.localMs);
  if (server === undefined) {
    return {
      name: 'clock',
      status: 'warn',
      message: `the answer's Date header is not an HTTP date (${shortText(redact(date), 100)}): the clock was not compared`,
      fix: 'nothing to do unless times in reports look wrong',
    };
  }
  // `Date` is truncated to the second: the service's time is somewhere in the second after it.
  const skew = server + 500 - answer.localMs;
  const seconds = Math.round(Math.abs(skew) / 1000);
  if (Math.abs(skew) <= CLOCK_TOLERANCE_MS) return { name: 'clock', status: 'ok', message: `the local clock is within ${Math.max(1, seconds)} s of the service's (its Date header)` };
  return {
    name: 'clock',
    status: 'warn',
    message: `the local clock is ${seconds} s ${skew > 0 ? 'behind' : 'ahead of'} the service's (its Date header: ${shortText(redact(date ?? ''), 100)})`,
    fix: 'turn on time synchronisation (e.g. timedatectl set-ntp true): Retry-After dates, certificate validity and the times in reports depend on it',
  };
}

export async function checkRequest(endpoint: Endpoint, proxy: ProxyRoute | undefined, options: DiagnoseOptions): Promise<{ check: Check; answer?: Answer }> {
  const { timeoutMs } = options;
  const poolOptions = { connections: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs };
  const dispatcher = openDispatcher(endpoint.origin, proxy, poolOptions, timeoutMs);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': `listings-cli/${VERSION} (doctor)` };
  if (options.apiKey !== undefined) {
    registerSecret(options.apiKey);
    headers.authorization = `Bearer ${options.apiKey}`;
  }
  try {
    const sent = Date.now();
    const started = performance.now();
    // The client's transport: an error body read to 64 KiB and then the connection closed, the whole body within
    // timeoutMs of the headers; a key echoed across that cut is masked in part too (redactCut).
    const raw = await post(dispatcher, { origin: endpoint.origin, path: endpoint.path, method: 'POST', headers, body: PROBE_BODY }, timeoutMs, undefined);
    const answer: Answer = { status: raw.statusCode, headers: parseHeaders(raw.rawHeaders), text: raw.cut ? redactCut(raw.text) : raw.text, localMs: (sent + Date.now()) / 2, ms: Math.round(performance.now() - started) };
    return { check: judgeAnswer(answer, endpoint, options), answer };
  } catch (error) {
    const hop = proxy === undefined ? undefined : proxyHopError(error);
    if (proxy !== undefined && hop !== undefined) {
      const failure = proxyError(endpoint.origin, proxy, hop, timeoutMs);
      const message = failure instanceof Error ? failure.message : String(failure);
      return { check: { name: 'request', status: 'fail', kind: 'service', message, ...(failure instanceof ListingsError && failure.hint !== undefined ? { fix: failure.hint } : {}) } };
    }
    if (isNotHttp(error)) {
      const message = `POST ${endpoint.path}: ${endpoint.origin} answered something that is not HTTP/1.1: ${describe(error)}`;
      return { check: { name: 'request', status: 'fail', kind: 'service', message: redact(message), fix: notHttpHint(endpoint.origin, error) } };
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
