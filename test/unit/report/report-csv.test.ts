import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { csvCell } from '../../../src/report/csv.js';
import { printable } from '../../../src/printable.js';
import { openReport } from '../../../src/report/report-writer.js';
import { SummaryCounter } from '../../../src/report/summary.js';

describe('csvCell', () => {
  it.each([
    ['', ''],
    ['plain', 'plain'],
    ['with space', 'with space'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['=1+2', "'=1+2"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', '"\'\rx"'],
    ['\nx', '"\'\nx"'],
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['a=b', 'a=b'],
    ["'quoted", "'quoted"],
    ['ünïcode ✓', 'ünïcode ✓'],
    // A formula after leading white space or quotes, or in full-width form, which spreadsheets also run.
    [' =1+1', "' =1+1"],
    ['  -2', "'  -2"],
    ['\u00a0@SUM(A1)', "'\u00a0@SUM(A1)"],
    ['\u3000=1', "'\u3000=1"],
    ['"=1+1', `"'""=1+1"`],
    ["'=1", "''=1"],
    ["' =1", "'' =1"],
    ['\uff1d1+1', "'\uff1d1+1"],
    ['\uff0b1', "'\uff0b1"],
    ['\uff0d1', "'\uff0d1"],
    ['\uff20x', "'\uff20x"],
    [' plain', ' plain'],
    ['" quoted"', '""" quoted"""'],
  ])('%j -> %j', (input, output) => {
    expect(csvCell(input)).toBe(output);
  });
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-csv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const nasty = [
  '=HYPERLINK("http://x","y")',
  'Shirt, "blue", size M',
  'line one\nline two\r\nline three',
  '+33 1 23 45 67',
  '-5% off',
  '@mention',
  '\tindented',
  'plain title',
  '',
];

describe('the CSV report', () => {
  it('survives a round trip through csv-parse, neutralised cells reading back with a leading quote', async () => {
    const path = join(dir, 'report.csv');
    const report = await openReport(path);
    const counter = new SummaryCounter();
    const outcomes: RowOutcome[] = nasty.map((title, i) => ({
      index: i,
      location: { source: 'catalog.csv', line: i + 2 },
      sku: i === 3 ? '-SKU-3' : `SKU-${i}`,
      outcome: i % 2 === 0 ? 'published' : 'failed',
      ...(title === '' ? {} : { title }),
      ...(i % 2 === 0 ? { httpStatus: 201, listingStatus: 'ready' } : { httpStatus: 422, reason: 'HTTP 422 is not retried', error: 'bad, "very" bad\nindeed' }),
      attempts: i % 2 === 0 ? 1 : 3,
      durationMs: 10 + i,
    }));
    for (const o of outcomes) {
      counter.add(o);
      await report.write(o);
    }
    await report.close(counter.summary(100, [path]));

    const text = await readFile(path, 'utf8');
    const records = parse<Record<string, string>>(text, { columns: true });
    expect(Object.keys(records[0] ?? {})).toEqual([
      'source', 'line', 'sku', 'outcome', 'reason', 'http_status', 'listing_status', 'title', 'attempts', 'duration_ms', 'error', 'marketplace',
    ]);
    expect(records).toHaveLength(nasty.length);
    records.forEach((r, i) => {
      // Control characters (line breaks and tabs too) are written out as \uXXXX; then formulas are neutralised.
      const title = printable(nasty[i] ?? '', { lines: false });
      const dangerous = title !== '' && '=+-@\t\r\n'.includes(title[0] ?? '');
      expect(r.title).toBe(dangerous ? `'${title}` : title);
      expect(r.line).toBe(String(i + 2));
      expect(r.source).toBe('catalog.csv');
      expect(r.attempts).toBe(i % 2 === 0 ? '1' : '3');
      expect(r.duration_ms).toBe(String(10 + i));
      if (i % 2 === 1) {
        // Free of control characters: a line break inside a message is written out, not kept.
        expect(r.error).toBe('bad, "very" bad\\u000aindeed');
        expect(r.http_status).toBe('422');
        expect(r.outcome).toBe('failed');
      } else {
        expect(r.listing_status).toBe('ready');
        expect(r.error).toBe('');
      }
    });
    expect(records[0]?.title).toBe('\'=HYPERLINK("http://x","y")');
    expect(records[3]?.sku).toBe("'-SKU-3");
    // no spreadsheet formula survives at the start of any cell
    for (const r of records) for (const value of Object.values(r)) expect(value).not.toMatch(/^[=+\-@\t\r\n]/);
  });

  it('writes a header only for an empty run', async () => {
    const path = join(dir, 'empty.csv');
    const report = await openReport(path);
    await report.close(new SummaryCounter().summary(0, [path]));
    expect(await readFile(path, 'utf8')).toBe('source,line,sku,outcome,reason,http_status,listing_status,title,attempts,duration_ms,error,marketplace\n');
  });

  it('is cheap per row: 200k rows well within the time of a 1M-row benchmark share', async () => {
    const path = join(dir, 'big.csv');
    const report = await openReport(path);
    const o: RowOutcome = {
      index: 0,
      location: { source: 'bench/data/catalog-1m.csv', line: 2 },
      sku: 'SKU-0000001',
      outcome: 'published',
      httpStatus: 201,
      listingStatus: 'ready',
      title: 'Vintage leather jacket, brown, size M',
      attempts: 1,
      durationMs: 4,
      marketplace: 'EBAY_US',
    };
    const start = performance.now();
    for (let i = 0; i < 200_000; i++) {
      o.index = i;
      o.location = { source: o.location.source, line: i + 2 };
      const wait = report.write(o);
      if (wait) await wait;
    }
    await report.close(new SummaryCounter().summary(1, [path]));
    const ms = performance.now() - start;
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines).toHaveLength(200_002);
    expect(lines[200_000]).toBe('bench/data/catalog-1m.csv,200001,SKU-0000001,published,,201,ready,"Vintage leather jacket, brown, size M",1,4,,EBAY_US');
    // typically ~150 ms (under 1 µs a row); the bound only catches a writer gone quadratic or synchronous
    expect(ms).toBeLessThan(3000);
  });
});
