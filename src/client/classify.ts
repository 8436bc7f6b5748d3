import { ApiError, NetworkError, TimeoutError } from '../errors.js';

/** Statuses worth another attempt: the service may answer differently later. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/** True when the same request may succeed if sent again. Other 4xx never will. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof TimeoutError) return true;
  if (error instanceof ApiError) return RETRYABLE_STATUSES.has(error.status);
  return false;
}

/**
 * True when the failure says the service cannot be used by this run at all (key rejected, wrong endpoint, or a
 * redirect, which is never followed with the key), so sending further rows would only repeat it.
 */
export function isSystemic(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  const { status } = error;
  return status === 401 || status === 403 || status === 404 || status === 405 || (status >= 300 && status < 400);
}
