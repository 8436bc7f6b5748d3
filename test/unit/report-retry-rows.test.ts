import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, UsageError } from '../../src/errors.js';
import type { RowOutcome } from '../../src/publish/outcome.js';
import { openReport } from '../../src/report/report-writer.js';
import { readRetryRows, retryIdentity } from '../../src/report/retry-rows.js';
import { SummaryCounter } from '../../src/report/summary.js';

const loc = (line: number) => ({ source: 'cat.csv', line });
const outcomes: RowOutcome[] = [
  { index: 0, location: loc(2), sku: 'OK-1', outcome: 'published', attempts: 1, durationMs: 1 },
  { index: 1, location: loc(3), sku: 'FAIL-1', outcome: 'failed', httpStatus: 503, attempts: 5, durationMs: 1 },
  { index: 2, location: loc(4), sku: '=FORMULA, "quoted"', outcome: 'failed', error: 'socket hang up', attempts: 2, durationMs: 1 },
  { index: 3, location: loc(5), sku: '-7', outcome: 'not_attempted', reason: 'interrupted', attempts: 0, durationMs: 0 },
  { index: 4, location: loc(6), outcome: 'failed', attempts: 1, durationMs: 1 },
  { index: 5, location: loc(7), sku: 'BAD', outcome: 'invalid', error: 'x', attempts: 0, durationMs: 0 },
  { index: 6, location: loc(8), sku: 'SKIP', outcome: 'skipped', reason: 'unchanged', attempts: 0, durationMs: 0 },
  { index: 7, location: { source: 'cat.json', record: 3 }, outcome: 'not_attempted', attempts: 0, durationMs: 0 },
];
const expected = new Set(['sku:FAIL-1', 'sku:=FORMULA, "quoted"', 'sku:-7', 'at:cat.csv:6', 'at:cat.json:3']);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'retry-rows-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('retryIdentity', () => {
  it.each([
    ['a SKU wins over the place', { location: loc(3), sku: 'S' }, 'sku:S'],
    ['no SKU: the place', { location: loc(3) }, 'at:cat.csv:3'],
    ['empty SKU: the place', { location: loc(3), sku: '' }, 'at:cat.csv:3'],
    ['a JSON record', { location: { source: 'c.json', record: 9 } }, 'at:c.json:9'],
  ])('%s', (_name, row, id) => {
    expect(retryIdentity(row)).toBe(id);
  });
});

describe('readRetryRows', () => {
  it.each(['r.csv', 'r.json', 'r.ndjson'])('reads the failed and not_attempted rows of a %s report', async (name) => {
    const path = join(dir, name);
    const report = await openReport(path);
    const counter = new SummaryCounter();
    for (const o of outcomes) {
      counter.add(o);
      await report.write(o);
    }
    await report.close(counter.summary(10, [path]));
    expect(await readRetryRows(path)).toEqual(expected);
  });

  it('the identities match the rows of the next run', async () => {
    const path = join(dir, 'r.csv');
    const report = await openReport(path);
    for (const o of outcomes) await report.write(o);
    await report.close(new SummaryCounter().summary(1, [path]));
    const ids = await readRetryRows(path);
    const retried = outcomes.filter((o) => ids.has(retryIdentity(o))).map((o) => o.index);
    expect(retried).toEqual([1, 2, 3, 4, 7]);
  });

  it('a JUnit report cannot be read back', async () => {
    await expect(readRetryRows(join(dir, 'r.xml'))).rejects.toThrow(UsageError);
  });

  it('a missing report is a ConfigError naming it', async () => {
    await expect(readRetryRows(join(dir, 'gone.csv'))).rejects.toThrow(/gone\.csv/);
    await expect(readRetryRows(join(dir, 'gone.csv'))).rejects.toThrow(ConfigError);
  });

  it.each([
    ['r.json', '{"rows":[{"outcome":"failed","sku":"A"}'],
    ['r.ndjson', '{"outcome":"failed","sku":"A"}\nnot json\n'],
    ['r.csv', 'source,line,sku,outcome\n"unclosed,1,A,failed\n'],
  ])('a broken %s report is a ConfigError', async (name, content) => {
    await writeFile(join(dir, name), content);
    await expect(readRetryRows(join(dir, name))).rejects.toThrow(ConfigError);
  });

  it('a report with no failures gives an empty set', async () => {
    await writeFile(join(dir, 'ok.ndjson'), '{"outcome":"published","sku":"A","source":"c","line":2}\n{"summary":{"rows":1}}\n');
    expect(await readRetryRows(join(dir, 'ok.ndjson'))).toEqual(new Set());
  });
});
