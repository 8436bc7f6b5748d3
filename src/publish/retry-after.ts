import { parseHttpDate } from '../http-date.js';

/**
 * Parse an HTTP `Retry-After` header (RFC 9110 §10.2.3) into a delay in milliseconds.
 *
 * - delta-seconds (`"2"`, `"120"`): that many seconds;
 * - an HTTP date (`"Wed, 21 Oct 2015 07:28:00 GMT"`): the time left until then, 0 when it is already past;
 * - absent, empty or unreadable (`1.5`, `-3`, a date in no HTTP form, such as `May 5`): `undefined` (the caller falls
 *   back to its own backoff).
 *
 * Fractional or negative seconds are not delta-seconds and read as garbage, as the RFC's grammar says.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (isDigits(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : Number.MAX_SAFE_INTEGER;
  }
  const at = parseHttpDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
