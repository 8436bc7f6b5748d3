import type { IncomingHttpHeaders } from 'node:http';
import { redact } from '../secrets.js';

/** Headers that carry credentials: never recorded or forwarded. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'x-auth-token', 'x-access-token', 'x-amz-security-token', 'x-goog-api-key']);
/** Headers of one connection, not of the callback (RFC 9110 7.6.1), and those recomputed when sent again. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect']);

/** Why a header (its lower-case name) is never kept nor sent again, or undefined when it is kept. */
export function droppedHeader(name: string): string | undefined {
  if (SECRET_HEADERS.has(name)) return 'it carries credentials';
  if (HOP_HEADERS.has(name)) return 'it belongs to one connection';
  return undefined;
}

/**
 * The headers of a callback worth keeping and sending again: all but credentials and those of the connection, each
 * value passed through `redact` (a registered secret never leaves).
 */
export function callbackHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || droppedHeader(name) !== undefined) continue;
    kept[name] = redact(Array.isArray(value) ? value.join(', ') : value);
  }
  return kept;
}
