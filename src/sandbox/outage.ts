/** The longest outage one call can ask for: an hour. */
const MAX_OUTAGE_MS = 3_600_000;

/** An outage in force: every listing request answered `status` until `until` (epoch ms). */
export interface Outage {
  until: number;
  status: number;
}

/**
 * The body of `POST /_sandbox/outage`, `{"ms": 5000, "status": 503}` (status optional, default 503): the outage it
 * asks for, or what is wrong with it.
 */
export function parseOutage(text: string, now: number): { outage: Outage } | { error: string } {
  let body: unknown;
  try {
    body = text.trim() === '' ? {} : (JSON.parse(text) as unknown);
  } catch {
    return { error: 'the body is not valid JSON: send {"ms": 5000, "status": 503}' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { error: 'the body must be a JSON object: {"ms": 5000, "status": 503}' };
  const { ms, status = 503 } = body as { ms?: unknown; status?: unknown };
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_OUTAGE_MS) return { error: `ms must be a number of milliseconds from 0 to ${MAX_OUTAGE_MS}` };
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return { error: 'status must be an HTTP error status from 400 to 599' };
  return { outage: { until: now + Math.round(ms), status } };
}
