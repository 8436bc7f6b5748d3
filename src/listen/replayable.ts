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

/**
 * A recording is input from outside (a file anyone may have edited): its line is sent again only with a method a
 * callback has, and only with the headers that are valid and are neither credentials nor of the connection (the
 * body's length and the target's host are the sender's own).
 */
export function replayable(record: RecordedCallback): Replayable {
  if (!REPLAYED_METHODS.has(record.method)) return { skipped: `method ${record.method}: only POST and PUT are sent again` };
  const headers: Record<string, string> = {};
  const dropped: DroppedHeader[] = [];
  for (const [raw, value] of Object.entries(record.headers)) {
    const name = raw.toLowerCase();
    const problem = headerProblem(name, value);
    if (problem === undefined) headers[name] = value;
    else dropped.push({ name: raw, reason: problem });
  }
  return { request: { method: record.method, headers, body: recordedBody(record) }, dropped };
}
