import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { UsageError } from '../../../src/errors.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { registerSecret } from '../../../src/secrets.js';
import { openReport, reportFormatOf } from '../../../src/report/report-writer.js';
import { SummaryCounter, type RunSummary } from '../../../src/report/summary.js';
import { xmlEscape } from '../../../src/report/xml.js';

const SECRET = 'sk_test_report_writers_0123456789';
registerSecret(SECRET);

const outcomes: RowOutcome[] = [
  { index: 0, location: { source: 'cat.csv', line: 2 }, sku: 'A-1', outcome: 'published', httpStatus: 201, listingStatus: 'ready', title: 'Tee <b>&</b> "bold"', attempts: 1, durationMs: 12 },
  { index: 1, location: { source: 'cat.csv', line: 3 }, sku: 'A-2', outcome: 'failed', httpStatus: 503, reason: 'gave up after 5 attempts', error: `upstream said Bearer ${SECRET}`, attempts: 5, durationMs: 900 },
  { index: 2, location: { source: 'cat.csv', line: 4 }, outcome: 'invalid', error: 'sku: is required', issues: [{ path: 'sku', message: 'is required' }], attempts: 0, durationMs: 0 },
  { index: 3, location: { source: 'cat.csv', line: 5 }, sku: 'A-4', outcome: 'skipped', reason: 'already published', attempts: 0, durationMs: 0 },
  { index: 4, location: { source: 'cat.csv', line: 6 }, sku: 'A-5', outcome: 'not_attempted', reason: 'interrupted', attempts: 0, durationMs: 0 },
  { index: 5, location: { source: 'cat.csv', line: 7 }, sku: 'ctl\u0001\u0008 \ud800 é ✓ 😀', outcome: 'failed', error: 'socket hang up', attempts: 2, durationMs: 30 },
];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'report-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeReport(name: string, rows = outcomes): Promise<{ path: string; text: string; summary: RunSummary }> {
  const path = join(dir, name);
  const report = await openReport(path);
  expect(report.path).toBe(path);
  const counter = new SummaryCounter();
  for (const o of rows) {
    counter.add(o);
    await report.write(o);
  }
  const summary = counter.summary(1234, [path]);
  await report.close(summary);
  return { path, text: await readFile(path, 'utf8'), summary };
}

describe('reportFormatOf', () => {
  it.each([
    ['r.csv', 'csv'],
    ['out/R.CSV', 'csv'],
    ['r.json', 'json'],
    ['r.ndjson', 'ndjson'],
    ['junit.xml', 'xml'],
    ['run.html', 'html'],
  ])('%s -> %s', (path, format) => {
    expect(reportFormatOf(path)).toBe(format);
  });

  it.each(['r.txt', 'r', 'r.csv.gz', 'r.htm'])('%s is a usage error', (path) => {
    expect(() => reportFormatOf(path)).toThrow(UsageError);
  });

  it('openReport refuses an unknown extension before creating anything', async () => {
    await expect(openReport(join(dir, 'r.txt'))).rejects.toThrow(UsageError);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('JSON report', () => {
  it('is {"rows":[...],"summary":{...}} with every row in order', async () => {
    const { text, summary } = await writeReport('r.json');
    const parsed = JSON.parse(text) as { rows: Record<string, unknown>[]; summary: RunSummary };
    expect(Object.keys(parsed)).toEqual(['rows', 'summary']);
    expect(parsed.summary).toEqual(summary);
    expect(parsed.rows.map((r) => r.sku)).toEqual(['A-1', 'A-2', null, 'A-4', 'A-5', 'ctl\\u0001\\u0008 \\ud800 é ✓ 😀']);
    expect(parsed.rows[0]).toEqual({
      source: 'cat.csv', line: 2, sku: 'A-1', outcome: 'published', reason: null, http_status: 201, listing_status: 'ready',
      title: 'Tee <b>&</b> "bold"', attempts: 1, duration_ms: 12, error: null, marketplace: null,
    });
    expect(parsed.rows[2]?.issues).toEqual([{ path: 'sku', message: 'is required' }]);
  });

  it('an empty run is still valid JSON', async () => {
    const { text } = await writeReport('empty.json', []);
    expect(JSON.parse(text)).toMatchObject({ rows: [], summary: { rows: 0 } });
  });
});

describe('NDJSON report', () => {
  it('is one row per line, then the summary line', async () => {
    const { text, summary } = await writeReport('r.ndjson');
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(outcomes.length + 1);
    expect(lines.slice(0, -1).map((r) => r.outcome)).toEqual(outcomes.map((o) => o.outcome));
    expect(lines.at(-1)).toEqual({ summary });
  });
});

describe('JUnit report', () => {
  // Before: the failure's text was escaped whole, its own line breaks with the outside text's, so a CI dashboard
  // showed one line, `failed at cat.csv:3\u000areason: ...`.
  it("a failure's text has a line per part; only the outside text's own line breaks are escaped", async () => {
    const failed: RowOutcome = { index: 0, location: { source: 'cat.csv', line: 2 }, sku: 'A-1', outcome: 'failed', reason: 'HTTP 400 is not retried', httpStatus: 400, error: 'bad\nvalue \u001b[31m', attempts: 1, durationMs: 5 };
    const { text } = await writeReport('lines.xml', [failed]);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', htmlEntities: true }).parse(text) as { testsuite: { testcase: { failure: { '#text': string } } } };
    expect(doc.testsuite.testcase.failure['#text']).toBe('failed at cat.csv:2\nreason: HTTP 400 is not retried\nhttp status: 400\nattempts: 1\nerror: bad\\u000avalue \\u001b[31m');
  });

  it('is well-formed XML with one testcase per row and the counts in the testsuite', async () => {
    const { text } = await writeReport('junit.xml');
    expect(XMLValidator.validate(text)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' }).parse(text) as {
      testsuite: Record<string, string> & { testcase: Record<string, unknown>[] };
    };
    const suite = doc.testsuite;
    expect(suite.tests).toBe('6');
    expect(suite.failures).toBe('3');
    expect(suite.skipped).toBe('2');
    expect(suite.errors).toBe('0');
    expect(suite.time).toBe('1.234');
    const cases = suite.testcase;
    expect(cases.map((c) => c.name)).toEqual([
      'A-1 (cat.csv:2)',
      'A-2 (cat.csv:3)',
      '(no sku) (cat.csv:4)',
      'A-4 (cat.csv:5)',
      'A-5 (cat.csv:6)',
      'ctl\\u0001\\u0008 \\ud800 é ✓ 😀 (cat.csv:7)',
    ]);
    expect(cases.every((c) => c.classname === 'listings.cat.csv')).toBe(true);
    expect(cases[0]?.failure).toBeUndefined();
    expect(cases[1]?.failure).toMatchObject({ message: 'gave up after 5 attempts', type: 'failed' });
    expect(cases[2]?.failure).toMatchObject({ message: 'sku: is required', type: 'invalid' });
    expect(cases[3]?.skipped).toEqual({ message: 'already published' });
    expect(cases[4]?.skipped).toEqual({ message: 'not attempted: interrupted' });
  });

  it('an empty run is well-formed too', async () => {
    const { text } = await writeReport('empty.xml', []);
    expect(XMLValidator.validate(text)).toBe(true);
    expect(text).toMatch(/<testsuite name="listings publish" tests="0" failures="0" errors="0" skipped="0"/);
  });

  it('the testsuite tag fills exactly the room kept for it', async () => {
    const { text } = await writeReport('one.xml', [outcomes[0]!]);
    const header = text.split('\n')[1] ?? '';
    expect(header.length).toBe(240);
    expect(header.endsWith('>')).toBe(true);
  });
});

describe('xmlEscape', () => {
  it.each([
    ['plain', 'plain'],
    ['a & b', 'a &amp; b'],
    ['<tag attr="v">', '&lt;tag attr=&quot;v&quot;&gt;'],
    ["it's", "it's"],
    ['tab\tnl\ncr\r', 'tab&#9;nl&#10;cr&#13;'],
    ['nul\u0000bel\u0007', 'nul\ufffdbel\ufffd'],
    ['\ufffe\uffff', '\ufffd\ufffd'],
    ['lone \ud800 high', 'lone \ufffd high'],
    ['lone \udc00 low', 'lone \ufffd low'],
    ['pair 😀', 'pair 😀'],
    ['high at end \ud83d', 'high at end \ufffd'],
    ['private \ue000', 'private \ue000'],
  ])('%j -> %j', (input, output) => {
    expect(xmlEscape(input)).toBe(output);
  });
});

describe('JSON and NDJSON reports: a source name and a SKU are escaped as in the CSV, JUnit and HTML reports', () => {
  // A file name may hold ESC or a direction override (a SKU that does makes its row invalid, yet it is reported):
  // decoded by `jq -r .source`, the JSON value reached the terminal as raw ESC.
  const hostile: RowOutcome = { index: 0, location: { source: 'x\u001b]52;c;cHduZWQ=\u0007\u202e\u009b.csv', line: 2 }, sku: 'S\u001b[2J', outcome: 'invalid', error: 'sku: holds a control character', attempts: 0, durationMs: 0 };
  it.each(['r.json', 'r.ndjson'])('%s', async (name) => {
    const { text } = await writeReport(name, [hostile]);
    const row = (name === 'r.json' ? (JSON.parse(text) as { rows: Record<string, unknown>[] }).rows[0] : (JSON.parse(text.split('\n')[0]!) as Record<string, unknown>))!;
    expect(row.source).toBe('x\\u001b]52;c;cHduZWQ=\\u0007\\u202e\\u009b.csv');
    expect(row.sku).toBe('S\\u001b[2J');
    expect(text).not.toMatch(/[\u007f-\u009f\u202e]/);
  });
});

describe('a line or paragraph separator (U+2028, U+2029) in a listing title from the service', () => {
  // Before: written raw, so a reader splitting lines as Python's str.splitlines() or a JS regex `^` does saw one
  // NDJSON row cut in three, and the CSV report held a character many viewers break the line at.
  const row: RowOutcome = { index: 0, location: { source: 'cat.csv', line: 2 }, sku: 'A-1', outcome: 'published', httpStatus: 201, title: 'one\u2028two\u2029three', attempts: 1, durationMs: 1 };
  it.each(['r.csv', 'r.json', 'r.ndjson'])('%s: written \\u2028, so every line is a whole row', async (name) => {
    const { text } = await writeReport(name, [row]);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toMatch(/one\\+u2028two\\+u2029three/);
  });
});

describe('a lone surrogate in a message from the service', () => {
  // Before: written as the JSON escape \ud800, which decodes to a string no UTF-8 can hold: a strict reader (Rust's
  // serde_json) refused the whole report, the CSV showed U+FFFD. Now it is written out as the other escapes are.
  const row: RowOutcome = { index: 0, location: { source: 'cat.csv', line: 2 }, sku: 'A-1', outcome: 'failed', httpStatus: 422, error: 'lone\ud800x and \udc00y, a pair 😀 kept', attempts: 1, durationMs: 1 };
  it.each(['r.json', 'r.ndjson'])('%s', async (name) => {
    const { text } = await writeReport(name, [row]);
    const parsed = (name === 'r.json' ? (JSON.parse(text) as { rows: Record<string, unknown>[] }).rows[0] : (JSON.parse(text.split('\n')[0]!) as Record<string, unknown>))!;
    expect(parsed.error).toBe('lone\\ud800x and \\udc00y, a pair 😀 kept');
  });
  it('r.csv', async () => {
    const { text } = await writeReport('r.csv', [row]);
    expect(text).toContain('lone\\ud800x and \\udc00y, a pair 😀 kept');
  });
});

describe('every report', () => {
  it.each(['r.csv', 'r.json', 'r.ndjson', 'r.xml'])('%s never holds the API key', async (name) => {
    const { text } = await writeReport(name);
    expect(text).not.toContain(SECRET);
    expect(text).toContain('****');
  });

  it.each(['r.csv', 'r.json', 'r.ndjson', 'r.xml'])('%s: nothing at the path until close, nothing at all after abort', async (name) => {
    const path = join(dir, name);
    const report = await openReport(path);
    for (let i = 0; i < 3000; i++) await report.write({ ...outcomes[0]!, index: i }); // past the in-memory chunk
    expect(await readdir(dir)).toEqual([expect.stringMatching(new RegExp(`^${name.replace('.', '\\.')}\\.tmp-[0-9a-f]{12}$`))]);
    await report.abort();
    expect(await readdir(dir)).toEqual([]);
  });

  it('abort keeps an earlier report at the path as it was', async () => {
    const path = join(dir, 'r.csv');
    await writeFile(path, 'previous run\n');
    const report = await openReport(path);
    await report.write(outcomes[0]!);
    await report.abort();
    expect(await readFile(path, 'utf8')).toBe('previous run\n');
  });
});
