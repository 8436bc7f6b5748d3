import { STATUS_CODES } from 'node:http';
import { printable } from '../printable.js';
import { parseJsonText } from '../json-text.js';
import { redact } from '../secrets.js';

const MAX_MESSAGE = 300;
/** The most of a redirect's Location shown in a message. */
export const MAX_LOCATION = 200;
/** The most of a text body looked at for its message: HTML is stripped of its markup within this much. */
const MAX_TEXT = 8 * 1024;

/**
 * One line, at most `max` characters, with whatever control characters the server sent written out, not obeyed.
 * For any text from a server (a message, a header): bounded and escaped, so it can be shown and written as it is.
 */
export function shortText(text: string, max = MAX_MESSAGE): string {
  // Only what can be shown is escaped: a 1 MB message costs no more than its first few kilobytes.
  const flat = printable(text.trimStart().slice(0, max * 8).replace(/\s+/g, ' ').trim(), { lines: false });
  if (flat.length <= max) return flat;
  // Never split a surrogate pair (it would be written as U+FFFD) nor an escape written as \uXXXX.
  let end = max - 1;
  const escape = flat.lastIndexOf('\\u', end);
  if (escape >= 0 && escape > end - 6 && /^\\u[0-9a-f]{4}/.test(flat.slice(escape, escape + 6))) end = escape;
  const code = flat.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${flat.slice(0, end)}…`;
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

/** Parse an error body: JSON when it is JSON (and no deeper than MAX_JSON_DEPTH), else the text. */
export function parseErrorBody(raw: string): unknown {
  const trimmed = raw.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"')) {
    try {
      return parseJsonText(trimmed);
    } catch {
      // not JSON after all, or too deep to be handled as JSON: keep the text
    }
  }
  return shortText(raw, 2000);
}

/**
 * The message of a failed request, from whatever error body came back: JSON with message / error / detail /
 * errors[], plain text or HTML, or nothing at all. Always short and on one line, with any secret masked.
 */
export function errorMessage(status: number, body: unknown): string {
  const reason = STATUS_CODES[status] ?? 'Unknown Status';
  let text: string | undefined;
  if (typeof body === 'string') {
    // Bounded first, and no `[^>]*` that could run to the end from every `<`: a page of a million `<` must not cost
    // seconds of backtracking per answer.
    const stripped = body
      .slice(0, MAX_TEXT)
      .replace(/<(script|style)\b[^<>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^<>]+>/g, ' ');
    text = stripped.trim() === '' ? undefined : stripped;
  } else {
    text = messageFromJson(body);
  }
  // Masked before it is cut: a key the body held JSON-escaped (`\u0063anary`, `a\/b`) is whole only once parsed, and
  // a cut through it would leave a part no later masking can recognise.
  return text === undefined ? `HTTP ${status} ${reason}` : `HTTP ${status} ${reason}: ${shortText(redact(text))}`;
}
