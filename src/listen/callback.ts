import type { IncomingHttpHeaders } from 'node:http';
import { JsonNumber } from '../json-number.js';
import { JsonDepthError, parseJsonRecord } from '../json-text.js';

/** One HTTP request received by the listener, as it came. */
export interface ReceivedCallback {
  /** When it was received. */
  receivedAt: Date;
  method: string;
  /** The path with its query, as requested. */
  path: string;
  /** The request headers (lower-case names). */
  headers: IncomingHttpHeaders;
  /** The body's bytes, exactly. */
  body: Buffer;
}

/** What a callback says of itself, where its body or headers carry it. Every field is optional. */
export interface CallbackSummary {
  /** The event's id: body `id` or `event_id`, else the `Webhook-Id` or `Idempotency-Key` header. */
  id?: string;
  /** The event kind: body `type`, `event`, `event_type` or `kind`. */
  kind?: string;
  sku?: string;
  status?: string;
  /**
   * The parsed body, when it is JSON that says one thing: a number JS would change is a JsonNumber (write it with
   * stringifyJson); a body holding a key twice is not parsed (JSON.parse would drop one of the values), only shown.
   */
  json?: unknown;
  /** The body as text, when it is valid UTF-8. */
  text?: string;
  /** The body opens arrays or objects nested deeper than MAX_JSON_DEPTH (64): it was not parsed. */
  tooDeep?: true;
}

const KIND_FIELDS = ['type', 'event', 'event_type', 'kind'];
const ID_FIELDS = ['id', 'event_id'];
const ID_HEADERS = ['webhook-id', 'idempotency-key'];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  // As written: `12345678901234567890` and `12345678901234567891` are two ids, not both `12345678901234567000`.
  if (value instanceof JsonNumber) return value.text;
  return undefined;
}

function firstField(object: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = scalar(object[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The objects a field may sit in: the body, its `data`, `data.object`, `payload`, `listing`. */
function holders(body: Record<string, unknown>): Record<string, unknown>[] {
  const found = [body];
  for (const candidate of [body.data, isObject(body.data) ? body.data.object : undefined, body.payload, body.listing]) {
    if (isObject(candidate)) found.push(candidate);
  }
  return found;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return scalar(Array.isArray(value) ? value[0] : value);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, or undefined when it is not valid UTF-8. */
export function utf8Text(body: Uint8Array): string | undefined {
  try {
    return UTF8.decode(body);
  } catch {
    return undefined;
  }
}

/** Read what a callback says of itself; any body is accepted (JSON, text, bytes). */
export function summarize(callback: Pick<ReceivedCallback, 'headers' | 'body'>): CallbackSummary {
  const summary: CallbackSummary = {};
  const text = utf8Text(callback.body);
  if (text !== undefined) {
    summary.text = text;
    try {
      summary.json = parseJsonRecord(text);
    } catch (error) {
      // Text that does not open an array or object is not JSON however many brackets it holds.
      if (error instanceof JsonDepthError && /^\s*[[{]/.test(text)) summary.tooDeep = true;
      // otherwise not JSON, or a key written twice: shown as text, exactly
    }
  }
  if (isObject(summary.json)) {
    const body = summary.json;
    const id = firstField(body, ID_FIELDS);
    if (id !== undefined) summary.id = id;
    const kind = firstField(body, KIND_FIELDS);
    if (kind !== undefined) summary.kind = kind;
    let sku: string | undefined;
    let status: string | undefined;
    for (const holder of holders(body)) {
      sku ??= scalar(holder.sku);
      status ??= scalar(holder.status);
    }
    if (sku !== undefined) summary.sku = sku;
    if (status !== undefined) summary.status = status;
  }
  if (summary.id === undefined) {
    for (const name of ID_HEADERS) {
      const id = headerValue(callback.headers, name);
      if (id !== undefined) {
        summary.id = id;
        break;
      }
    }
  }
  return summary;
}
