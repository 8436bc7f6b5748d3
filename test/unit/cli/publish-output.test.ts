import { describe, expect, it } from 'vitest';
import { ProgressDisplay, count, duration } from '../../../src/cli/progress.js';
import { summaryLine } from '../../../src/cli/summary.js';
import { rowErrorLine } from '../../../src/report/summary-text.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { SummaryCounter } from '../../../src/report/summary.js';

const at = { source: 'catalog.csv', line: 17 };

describe('publish output', () => {
  it('shows a row error located, with its SKU and the service message', () => {
    const failed: RowOutcome = { index: 15, location: at, sku: 'MUG-1', outcome: 'failed', reason: 'HTTP 400 is not retried', httpStatus: 400, attempts: 1, durationMs: 3, error: 'HTTP 400 Bad Request: title too long' };
    expect(rowErrorLine(failed)).toBe('catalog.csv:17: sku MUG-1: HTTP 400 Bad Request: title too long');
    const invalid: RowOutcome = { index: 15, location: { source: 'c.json', record: 4 }, outcome: 'invalid', attempts: 0, durationMs: 0, error: 'sku: is required' };
    expect(rowErrorLine(invalid)).toBe('c.json#4: invalid: sku: is required');
  });

  it('sums up a run in one line: validated for a dry run, published otherwise', () => {
    const counter = new SummaryCounter();
    for (let i = 0; i < 3; i++) counter.add({ index: i, location: at, outcome: 'validated', attempts: 0, durationMs: 0 });
    counter.add({ index: 3, location: at, outcome: 'invalid', attempts: 0, durationMs: 0 });
    const summary = counter.summary(2_500, []);
    expect(summaryLine(summary, true)).toBe('✖ 4 rows in 2.5s (2 rows/s): 3 validated, 0 failed, 1 invalid, 0 skipped, 0 not attempted');
  });

  it('writes durations and counts for people', () => {
    expect([duration(420), duration(9_400), duration(83_000), duration(3_725_000)]).toEqual(['0.4s', '9.4s', '1m 23s', '1h 02m']);
    expect(count(1_234_567)).toBe('1,234,567');
  });

  it('groups thousands as en-US does, without ICU', () => {
    const values = [0, 7, 999, 1_000, 12_345, 999_999, 1_234_567, 1e15, -1, -1_000, -1_234_567, 0.5, 1_234.5, 1_234.5678, 0.0004, -0.0004, -2.25];
    expect(values.map(count)).toEqual(values.map((value) => value.toLocaleString('en-US')));
    expect([count(0), count(999), count(1_000), count(1_234_567), count(-1_234.5)]).toEqual(['0', '999', '1,000', '1,234,567', '-1,234.5']);
  });

  it('draws done/total, percent, rate, failures and ETA; without a total, a byte percent scaled by rows done', async () => {
    let now = 0;
    const withTotal = await ProgressDisplay.start({ mode: 'off', readProgress: () => ({ bytesRead: 0 }), total: 1_000, now: () => now });
    for (let i = 0; i < 250; i++) withTotal.tick({ index: i, location: at, outcome: i < 2 ? 'failed' : 'published', attempts: 1, durationMs: 1 });
    now = 5_000;
    expect(withTotal.line()).toBe('250/1,000 rows · 25% · 50 rows/s · 2 failed · ETA 15s');
    now = 0;
    const bytes = await ProgressDisplay.start({ mode: 'off', readProgress: () => ({ bytesRead: 600, totalBytes: 1_000 }), rowsRead: () => 400, now: () => now });
    for (let i = 0; i < 200; i++) bytes.tick({ index: i, location: at, outcome: 'published', attempts: 1, durationMs: 1 });
    now = 3_000;
    // 60% of the bytes read, half of the rows read done: 30%.
    expect(bytes.line()).toBe('200 rows · 30% · 67 rows/s · ETA 7.0s');
    // A total counted after the start replaces the byte estimate; an estimate never shows 100% before the end.
    bytes.setTotal(200);
    expect(bytes.line()).toBe('200/200 rows · 99% · 67 rows/s · ETA 0.0s');
    bytes.setTotal(800);
    expect(bytes.line()).toBe('200/800 rows · 25% · 67 rows/s · ETA 9.0s');
  });

  it('a resumed run: the ETA counts the skipped rows as free and the rows sent at their own pace', async () => {
    let now = 0;
    const display = await ProgressDisplay.start({ mode: 'off', readProgress: () => ({ bytesRead: 0 }), total: 1_000, expectedSkips: 600, now: () => now });
    // 500 rows already published go by in half a second; then 100 rows are sent in 10 s.
    for (let i = 0; i < 500; i++) display.tick({ index: i, location: at, outcome: 'skipped', reason: 'already published', attempts: 0, durationMs: 0 });
    now = 500;
    for (let i = 0; i < 100; i++) {
      display.tick({ index: 500 + i, location: at, outcome: 'published', attempts: 1, durationMs: 100 });
      now += 100;
    }
    // 400 rows left, 100 of them expected skipped: 300 to send at 10 rows/s (the old formula said 7s).
    expect(display.line()).toMatch(/ETA 30s$/);
  });
});
