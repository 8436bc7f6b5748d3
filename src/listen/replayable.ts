import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { ForwardRequest } from './forward.js';
import { droppedHeader } from './headers.js';
import { recordedBody, type RecordedCallback } from './recording.js';

/** The methods a replay sends; a recorded line with another (CONNECT, TRACE, GET...) is skipped. */
const REPLAYED_METHODS = new Set(['POST', 'PUT']);

/** A recorded header not sent again, and why. */
export interface DroppedHeader {
  name: string;
  reason: string;
}

/** What a recorded line sends: the request, with the headers left out; or why the line is not sent at all. */
export type Replayable = { request: ForwardRequest; dropped: DroppedHeader[] } | { skipped: string };

function headerProblem(name: string, value: string): string | undefined {
  try {
    validateHeaderName(name);
  } catch {
    return 'not a valid header name';
  }
  try {
    validateHeaderValue(name, value);
  } catch {
    return 'its value holds characters a header may not';
  }
  return droppedHeader(name);
}

/** Base64 as Buffer writes it (padded, no white space): Buffer.from would decode anything else to other bytes in silence. */
function isCanonicalBase64(text: string): boolean {
  return Buffer.from(text, 'base64').toString('base64') === text;
}

/**
 * A recording is input from outside (a file anyone may have edited): its line is sent again only with a method a
 * callback has, and only with the headers that are valid and are neither credentials nor of the connection (the
 * body's length and the target's host are the sender's own).
 */
export function replayable(record: RecordedCallback): Replayable {
  if (!REPLAYED_METHODS.has(record.method)) return { skipped: `method ${record.method}: only POST and PUT are sent again` };
  if (record.body_encoding === 'base64' && !isCanonicalBase64(record.body)) return { skipped: 'its body is not the base64 a recording writes, so its bytes are not known' };
  // No prototype: a header named `__proto__` (a valid name) is kept as any other, not dropped by the assignment.
  const headers = Object.create(null) as Record<string, string>;
  const dropped: DroppedHeader[] = [];
  for (const [raw, value] of Object.entries(record.headers)) {
    const name = raw.toLowerCase();
    const problem = headerProblem(name, value);
    if (problem === undefined) headers[name] = value;
    else dropped.push({ name: raw, reason: problem });
  }
  return { request: { method: record.method, headers, body: recordedBody(record) }, dropped };
}
