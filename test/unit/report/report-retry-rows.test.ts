import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, UsageError } from '../../../src/errors.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { openReport } from '../../../src/report/report-writer.js';
import { RetrySelection, readRetryRows, type RetryReport } from '../../../src/report/retry-rows.js';
import { SummaryCounter } from '../../../src/report/summary.js';

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
const RUN_SOURCES = ['cat.csv', 'cat.json'];
const RETRIED = [1, 2, 3, 4, 7];

/** The indexes of `rows` a selection from `report` sends. */
function selected(report: RetryReport, rows: { location: RowOutcome['location']; sku?: string | undefined }[], sources = RUN_SOURCES): { indexes: number[]; selection: RetrySelection } {
  const selection = new RetrySelection(report, sources);
  const indexes = rows.flatMap((row, index) => (selection.selects(row) ? [index] : []));
  return { indexes, selection };
}

async function writeReport(path: string, rows: RowOutcome[], complete = true): Promise<void> {
  const report = await openReport(path);
  const counter = new SummaryCounter();
  for (const o of rows) {
    counter.add(o);
    await report.write(o);
  }
  await report.close(counter.summary(10, [path], undefined, { complete, interrupted: !complete }));
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'retry-rows-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readRetryRows and RetrySelection', () => {
  it.each(['r.csv', 'r.json', 'r.ndjson'])('a %s report: the failed and not_attempted rows, found at their place with their SKU', async (name) => {
    const path = join(dir, name);
    await writeReport(path, outcomes);
    const { indexes, selection } = selected(await readRetryRows(path), outcomes);
    expect(indexes).toEqual(RETRIED);
    expect(selection.listed).toBe(5);
    expect(selection.matched).toBe(5);
    expect(selection.beyondReport).toBe(0);
  });

  it('a SKU listed twice: only the failed one is sent again, not its published twin', async () => {
    const path = join(dir, 'r.csv');
    const rows: RowOutcome[] = [
      { index: 0, location: loc(2), sku: 'A', outcome: 'published', attempts: 1, durationMs: 1 },
      { index: 1, location: loc(3), sku: 'A', outcome: 'failed', httpStatus: 500, attempts: 1, durationMs: 1 },
    ];
    await writeReport(path, rows);
    expect(selected(await readRetryRows(path), rows).indexes).toEqual([1]);
  });

  it.each(['r.csv', 'r.json', 'r.ndjson', 'r.xml'])('a %s report of a run that stopped before the end says so; the rows it never reached are sent', async (name) => {
    const path = join(dir, name);
    const reached = outcomes.slice(0, 3);
    await writeReport(path, reached, false);
    const text = await readFile(path, 'utf8');
    if (name.endsWith('.csv')) expect(text.trimEnd().split('\n').at(-1)).toMatch(/^cat\.csv,,,not_read,the run stopped before the end of the source/);
    else if (name.endsWith('.xml')) expect(text).toContain('<testcase name="(rows not read)"');
    else expect(text).toContain('"complete":false');
    if (name.endsWith('.xml')) return;
    const next = [...outcomes.slice(0, 7), { location: loc(9), sku: 'NEW' }];
    const { indexes, selection } = selected(await readRetryRows(path), next, ['cat.csv']);
    // Lines 2-4 were reached (3 and 4 failed); lines 5 to 9 never were.
    expect(indexes).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(selection.beyondReport).toBe(5);
  });

  it('a source named another way is still matched when both runs read one source', async () => {
    const path = join(dir, 'r.csv');
    const rows = outcomes.slice(0, 7);
    await writeReport(path, rows);
    const renamed = rows.map((o) => ({ sku: o.sku, location: { source: './data/../cat.csv', line: o.location.line ?? 0 } }));
    expect(selected(await readRetryRows(path), renamed, ['./data/../cat.csv']).indexes).toEqual([1, 2, 3, 4]);
  });

  it('a failed row no longer at its place is not sent, and counted as missing', async () => {
    const path = join(dir, 'r.csv');
    const rows = outcomes.slice(0, 3);
    await writeReport(path, rows);
    // The catalog was re-exported with a row inserted at the top: every row moved one line down.
    const moved = [{ location: loc(2), sku: 'NEW-TOP' }, ...rows.map((o) => ({ location: loc((o.location.line ?? 0) + 1), sku: o.sku }))];
    const { indexes, selection } = selected(await readRetryRows(path), moved, ['cat.csv']);
    expect(indexes).toEqual([3]); // only line 5, past the report's end
    expect(selection.listed - selection.matched).toBe(2);
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

  it.each([
    ['r.json', '{"rows":[{"outcome":"published","sku":"A","source":"c","line":2},{"outcome":"failed","sku":"B","source":"c","line":-3}]}', 'row 2: its line "-3"'],
    ['r.json', '{"rows":[{"outcome":"failed","sku":"B","source":"c","line":1e400}]}', 'row 1: its line "1e400"'],
    ['r.ndjson', '{"outcome":"failed","sku":"B","source":"c","line":2.5}\n', 'row 1: its line "2.5"'],
    ['r.ndjson', '{"outcome":"failed","sku":"B","source":"c","line":{"n":2}}\n', 'row 1: its line "{\\"n\\":2}"'],
    ['r.csv', 'source,line,sku,outcome\nc,2,A,published\nc,0,B,failed\n', 'row 2: its line "0"'],
    ['r.csv', 'source,line,sku,outcome\nc,two,B,failed\n', 'row 1: its line "two"'],
  ])('a %s report whose row has a line no report holds (%s) is refused, not taken as reaching no row, which would send them all', async (name, content, told) => {
    await writeFile(join(dir, name), content);
    await expect(readRetryRows(join(dir, name))).rejects.toThrow(ConfigError);
    await expect(readRetryRows(join(dir, name))).rejects.toThrow(`not a readable listings report: ${told} is not a line number (a whole number from 1)`);
  });

  it('a row without a line (null, empty) is still read, as one at no place', async () => {
    await writeFile(join(dir, 'n.ndjson'), '{"outcome":"failed","sku":"A","source":"c","line":null}\n{"outcome":"published","sku":"B","source":"c","line":3}\n');
    const report = await readRetryRows(join(dir, 'n.ndjson'));
    expect(selected(report, [{ location: { source: 'c', line: 3 }, sku: 'B' }, { location: { source: 'c', line: 4 }, sku: 'C' }], ['c']).indexes).toEqual([1]);
  });

  it('a report with no failures selects nothing it reached', async () => {
    await writeFile(join(dir, 'ok.ndjson'), '{"outcome":"published","sku":"A","source":"c","line":2}\n{"summary":{"rows":1}}\n');
    const report = await readRetryRows(join(dir, 'ok.ndjson'));
    expect(selected(report, [{ location: { source: 'c', line: 2 }, sku: 'A' }], ['c']).indexes).toEqual([]);
  });
});

describe('a source whose name holds a control character (escaped in every report)', () => {
  const odd = 'cat\u001b[31m\u202e.csv';
  const rows: RowOutcome[] = [
    { index: 0, location: { source: odd, line: 2 }, sku: 'OK-1', outcome: 'published', attempts: 1, durationMs: 1 },
    { index: 1, location: { source: odd, line: 3 }, sku: 'FAIL-1', outcome: 'failed', attempts: 1, durationMs: 1 },
    { index: 2, location: { source: 'b.csv', line: 2 }, sku: 'OK-2', outcome: 'published', attempts: 1, durationMs: 1 },
  ];
  // The report names the source `cat\u001b[31m\u202e.csv`: read back, it was no source of the run, so every row of
  // it was taken for one the report never reached and sent again, the published ones too.
  it.each(['r.csv', 'r.json', 'r.ndjson'])('%s: --retry-failed sends its failed row, not its published one', async (name) => {
    const path = join(dir, name);
    await writeReport(path, rows);
    const { indexes, selection } = selected(await readRetryRows(path), rows, [odd, 'b.csv']);
    expect(indexes).toEqual([1]);
    expect(selection.beyondReport).toBe(0);
  });
});

describe('a SKU a spreadsheet could take for a formula reads back from the CSV report as itself', () => {
  // Before: `'=1` was written as it was, then read back as `=1`; the row it names was not matched.
  const skus = ['=1', ' =1', "'=1", "' =1", '"=1', '\uff1d1', "'plain", '-SKU'];
  it('each failed row is matched again, and no other', async () => {
    const rows: RowOutcome[] = skus.map((sku, i) => ({ index: i, location: loc(i + 2), sku, outcome: 'failed', attempts: 1, durationMs: 1 }));
    const path = join(dir, 'r.csv');
    await writeReport(path, rows);
    const { indexes, selection } = selected(await readRetryRows(path), rows, ['cat.csv']);
    expect(indexes).toEqual(skus.map((_, i) => i));
    expect(selection.matched).toBe(skus.length);
  });
});
