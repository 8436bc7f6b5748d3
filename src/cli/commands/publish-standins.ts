// TEMPORARY stand-in for src/report until it lands; delete then.
import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
/* eslint-disable */
import { dirname } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RowOutcome } from '../../publish/outcome.js';
import type { PreparedRow } from '../../prepare/types.js';
import { UsageError, formatLocation } from '../../errors.js';

export interface RunSummary {
  rows: number; published: number; failed: number; invalid: number; skipped: number; not_attempted: number; validated: number;
  duration_ms: number; rows_per_second: number; report: string[]; errors_by_status: Record<string, number>;
}
export class SummaryCounter {
  c = { rows: 0, published: 0, failed: 0, invalid: 0, skipped: 0, not_attempted: 0, validated: 0 };
  byStatus: Record<string, number> = {};
  add(o: RowOutcome): void {
    this.c.rows++;
    this.c[o.outcome]++;
    if (o.outcome === 'failed') { const k = o.httpStatus === undefined ? 'network' : String(o.httpStatus); this.byStatus[k] = (this.byStatus[k] ?? 0) + 1; }
  }
  summary(durationMs: number, report: string[]): RunSummary {
    return { ...this.c, duration_ms: durationMs, rows_per_second: this.c.rows / Math.max(0.001, durationMs / 1000), report, errors_by_status: this.byStatus };
  }
}
export interface ReportWriter { write(o: RowOutcome): void; close(s: RunSummary): Promise<void>; abort(): Promise<void> }
export function reportFormatOf(path: string): string {
  const m = /\.(csv|json|ndjson|xml)$/.exec(path);
  if (!m) throw new UsageError(`--report ${path}: unknown format`);
  return m[1]!;
}
const cell = (v: unknown): string => { let s = v === undefined ? '' : String(v); if (/^[=+\-@\t\r\n]/.test(s)) s = `'${s}`; return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
export function openReport(path: string): Promise<ReportWriter> {
  const format = reportFormatOf(path);
  const lines: string[] = format === 'csv' ? ['source,line,sku,outcome,reason,http_status,listing_status,title,attempts,duration_ms,error'] : [];
  const rows: RowOutcome[] = [];
  return Promise.resolve({
    write(o) { if (format === 'csv') lines.push([o.location.source, o.location.line, o.sku, o.outcome, o.reason, o.httpStatus, o.listingStatus, o.title, o.attempts, o.durationMs, o.error].map(cell).join(',')); else rows.push(o); },
    close(s) { mkdirSync(dirname(path), { recursive: true }); writeFileSync(`${path}.tmp`, format === 'csv' ? `${lines.join('\n')}\n` : JSON.stringify({ summary: s, rows })); renameSync(`${path}.tmp`, path); return Promise.resolve(); },
    abort() { return Promise.resolve(); },
  });
}
export function retryIdentity(row: PreparedRow): string { return `${formatLocation(row.location)}\u0000${row.sku ?? ''}`; }
export function readRetryRows(path: string): Promise<Set<string>> {
  const rows = parse(readFileSync(path, 'utf8'), { columns: true }) as Record<string, string>[];
  return Promise.resolve(new Set(rows.filter((r) => r.outcome === 'failed' || r.outcome === 'not_attempted').map((r) => `${r.source}:${r.line}\u0000${r.sku}`)));
}
