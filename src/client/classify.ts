import { ApiError, NetworkError, TimeoutError } from '../errors.js';

/** Statuses worth another attempt: the service may answer differently later. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * What a failed request says about the service, which decides what the run does next:
 *
 * - `throttled` (429): the service is busy and asks for a slower pace. Busy is not down.
 * - `overloaded` (503, and 502/504 from a proxy in front of it): busy; fewer requests at once.
 * - `timeout`: no answer in time. One is a busy service; every request timing out and none accepted is a hung one.
 * - `unreachable`: the request never reached the service (refused, no route, connect timeout, DNS, TLS). Resending
 *   the row cannot help until the service is reachable again, so these go to the circuit breaker, not to the row.
 * - `rejected`: the service cannot be used by this run at all (key rejected, no listing operation here, a redirect
 *   that is never followed with the key).
 * - `transient`: a real error that a retry may cure (500, 408, 425, a connection cut before the answer).
 * - `row`: this row's own fault (other 4xx); the same request would fail again.
 */
export type FailureKind = 'throttled' | 'overloaded' | 'timeout' | 'unreachable' | 'rejected' | 'transient' | 'row';

/** Pushback: the service is busy (429, 503, 502/504) or slow (a timeout), not failing. */
export function isPushbackKind(kind: FailureKind): boolean {
  return kind === 'throttled' || kind === 'overloaded' || kind === 'timeout';
}

/** Transport failures before any byte reached the service. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'UND_ERR_CONNECT_TIMEOUT']);

/** DNS and TLS failures: the same address will fail the same way; only a change of configuration cures them. */
export function isPermanentTransport(code: string | undefined): boolean {
  if (code === undefined) return false;
  return code === 'ENOTFOUND' || code === 'EAI_FAIL' || code === 'EAI_NONAME' || isTlsCode(code);
}

/** Node's and OpenSSL's names for certificate and handshake failures. */
export function isTlsCode(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_|ERR_SSL_|^EPROTO$|HOSTNAME_MISMATCH/.test(code);
}

export function classifyFailure(error: unknown): FailureKind {
  if (error instanceof ApiError) {
    const { status } = error;
    if (status === 429) return 'throttled';
    if (status === 503 || status === 502 || status === 504) return 'overloaded';
    if (isSystemic(error)) return 'rejected';
    return RETRYABLE_STATUSES.has(status) ? 'transient' : 'row';
  }
  if (error instanceof TimeoutError) return error.phase === 'connect' ? 'unreachable' : 'timeout';
  if (error instanceof NetworkError) {
    const { code } = error;
    if (code !== undefined && (UNREACHABLE_CODES.has(code) || isTlsCode(code))) return 'unreachable';
    return 'transient';
  }
  return 'row';
}

/** True when the same request may succeed if sent again. Other 4xx never will. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof TimeoutError) return true;
  if (error instanceof ApiError) return RETRYABLE_STATUSES.has(error.status);
  return false;
}

/**
 * True when the failure says the service cannot be used by this run at all (key rejected, wrong endpoint, an
 * operation the service does not implement, or a redirect, which is never followed with the key), so sending
 * further rows would only repeat it.
 */
export function isSystemic(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  const { status } = error;
  return status === 401 || status === 403 || status === 404 || status === 405 || status === 501 || (status >= 300 && status < 400);
}
