import { STATUS_CODES } from 'node:http';
import { printable } from '../printable.js';

const MAX_MESSAGE = 300;

/** One line, at most `max` characters, with whatever control characters the server sent written out, not obeyed. */
function truncate(text: string, max = MAX_MESSAGE): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim(), { lines: false });
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function stringOrMessage(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['message', 'detail', 'description', 'title', 'error', 'msg']) {
      const inner = record[key];
      if (typeof inner === 'string' && inner.trim() !== '') {
        const field = record.field ?? record.path ?? record.loc;
        const where = Array.isArray(field) ? field.join('.') : typeof field === 'string' ? field : undefined;
        return where ? `${where}: ${inner}` : inner;
      }
    }
  }
  return undefined;
}

/** A human message from a JSON error body of whatever common shape the service may use. */
function messageFromJson(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return stringOrMessage(body);
  const record = body as Record<string, unknown>;
  const errors = record.errors ?? record.issues;
  const listed = Array.isArray(errors)
    ? errors.map(stringOrMessage).filter((m): m is string => m !== undefined)
    : [];
  const head =
    stringOrMessage(record.message) ??
    stringOrMessage(record.error) ??
    stringOrMessage(record.detail) ??
    stringOrMessage(record.title) ??
    stringOrMessage(record.error_description);
  if (head && listed.length > 0) return `${head}: ${listed.join('; ')}`;
  if (listed.length > 0) return listed.join('; ');
  return head;
}

/** Parse an error body: JSON when it is JSON, else the text. */
export function parseErrorBody(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"')) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      // not JSON after all: keep the text
    }
  }
  return truncate(raw, 2000);
}

/**
 * The message of a failed request, from whatever error body came back: JSON with message / error / detail /
 * errors[], plain text or HTML, or nothing at all. Always short and on one line.
 */
export function errorMessage(status: number, body: unknown): string {
  const reason = STATUS_CODES[status] ?? 'Unknown Status';
  let text: string | undefined;
  if (typeof body === 'string') {
    const stripped = body.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ');
    text = stripped.trim() === '' ? undefined : stripped;
  } else {
    text = messageFromJson(body);
  }
  return text === undefined ? `HTTP ${status} ${reason}` : `HTTP ${status} ${reason}: ${truncate(text)}`;
}
