import type { OutcomeKind } from '../../publish/outcome.js';
import { safeText } from '../row.js';

/** The name of each outcome on the page. */
export const LABEL: Record<OutcomeKind | 'not_read', string> = {
  published: 'Published',
  failed: 'Failed',
  invalid: 'Invalid',
  skipped: 'Skipped',
  not_attempted: 'Not attempted',
  validated: 'Validated',
  enqueued: 'Enqueued',
  not_read: 'Not read',
};

/** Text from outside (a SKU, a message, a source name) made safe as HTML text or a quoted attribute value. */
export function escapeHtml(text: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let entity: string;
    if (c === 0x26) entity = '&amp;';
    else if (c === 0x3c) entity = '&lt;';
    else if (c === 0x3e) entity = '&gt;';
    else if (c === 0x22) entity = '&quot;';
    else if (c === 0x27) entity = '&#39;';
    else continue;
    out += text.slice(last, i) + entity;
    last = i + 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Outside text, with secrets masked and control characters written out, then escaped. */
export function outside(text: string | undefined): string {
  return escapeHtml(safeText(text) ?? '');
}

/** 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Axis labels: 950, 1.2k, 34k, 1.5M. */
export function compact(n: number): string {
  if (n >= 1e6) return `${trim(n / 1e6)}M`;
  if (n >= 1e3) return `${trim(n / 1e3)}k`;
  return trim(n);
}

export function trim(n: number): string {
  return n >= 100 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);
}

export function percent(part: number, whole: number): string {
  if (whole <= 0 || part <= 0) return '0%';
  const p = (part * 100) / whole;
  if (p < 0.1) return '<0.1%';
  if (p > 99.9 && part < whole) return '>99.9%';
  return `${p < 10 ? Math.round(p * 10) / 10 : Math.round(p)}%`;
}

/** 850 ms, 3.4 s, 12 min 5 s, 2 h 3 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function formatMs(ms: number): string {
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}

export function utc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
