import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { HEADER, csvRow, readCsvReport, skuOf } from '../helpers/publish.js';

/**
 * Input that cannot be read to its end (issue 11, item 6): every row before the place is counted and in the report
 * exactly once, the row the input breaks inside is an invalid row at its place, the error names the place
 * (file:line, or file#record for JSON), the summary says the source was not read to its end, and the exit is 4.
 * Empty sources (item 7) count no row.
 */

function record(i: number): string {
  return JSON.stringify({
    sku: skuOf(i),
    title: `Item ${i}`,
    marketplace: 'EBAY_US',
    images_source: [`https://images.example.com/${i}/a.jpg`],
    merchant_location_key: 'warehouse-1',
    fulfillment_policy_id: 'FULFILL-1',
    payment_policy_id: 'PAY-1',
    return_policy_id: 'RETURN-1',
    overrides: { condition: 'NEW' },
  });
}

interface Summary {
  rows: number;
  published: number;
  invalid: number;
  not_attempted: number;
  complete: boolean;
}

interface Published {
  result: CliResult;
  summary: Summary;
  /** The report's rows (its last line, when the run did not read the whole source, says so: outcome not_read). */
  rows: Record<string, string>[];
}

/** `publish --sandbox` of the sources (several joined by NUL), with a CSV report. */
async function publish(sources: string): Promise<Published> {
  const dir = tempDir();
  const report = join(dir, 'report.csv');
  const result = await runCli(['publish', ...sources.split('\0'), '--sandbox', '--json', '--no-journal', '--report', report], { cwd: dir });
  const summary = JSON.parse(result.stdout) as Summary;
  const rows = readCsvReport(report).filter((row) => row.outcome !== 'not_read');
  return { result, summary, rows };
}

/** The checks every cut source gets, from `publish --sandbox` and `validate` alike. */
async function expectCut(file: string, rowsRead: number, place: string, rowError: RegExp, sourceError: RegExp): Promise<void> {
  const [published, validated] = await Promise.all([publish(file), runCli(['validate', file, '--json'])]);

  const { result, summary, rows } = published;
  expect(result.code, result.stderr).toBe(4);
  expect(summary).toMatchObject({ rows: rowsRead, complete: false });
  expect(summary.published + summary.invalid + summary.not_attempted).toBe(rowsRead);
  // Every row read is in the report exactly once, in input order; the last is the row the input breaks inside.
  expect(rows).toHaveLength(rowsRead);
  expect(new Set(rows.map((row) => row.line)).size).toBe(rowsRead);
  expect(rows.slice(0, -1).map((row) => row.sku)).toEqual(Array.from({ length: rowsRead - 1 }, (_, i) => skuOf(i)));
  expect(rows.at(-1)).toMatchObject({ outcome: 'invalid', line: place.replace(/^.*[:#]/, '') });
  expect(rows.at(-1)?.error).toMatch(rowError);
  // The summary says the source was not read to its end, and where it stopped; the error names the place.
  expect(result.stderr).toContain(`stopped: the source could not be read past ${file}${place}: ${rowsRead.toLocaleString('en-US')} rows read`);
  expect(result.stderr).toMatch(new RegExp(`error ${escape(file + place)}: not read to its end: ${sourceError.source}`));
  expect(result.stderr).not.toMatch(/^\s+at /m);

  expect(validated.code, validated.stderr).toBe(4);
  expect(validated.stderr).toContain(`${rowsRead.toLocaleString('en-US')} rows: ${(rowsRead - 1).toLocaleString('en-US')} valid, 1 invalid`);
  expect(validated.stderr).toMatch(new RegExp(`error ${escape(file + place)}: not read to its end: ${sourceError.source}`));
  const json = JSON.parse(validated.stdout) as { rows: number; valid: number; invalid: number; complete: boolean; errors: { message: string }[] };
  expect(json).toMatchObject({ rows: rowsRead, valid: rowsRead - 1, invalid: 1, complete: false });
  expect(json.errors.at(-1)?.message).toMatch(rowError);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe.concurrent('malformed input: a source that cannot be read to its end exits 4, every row read counted and reported', () => {
  it('CSV with an unclosed quote in the middle: the rows before it, then its row at the line where the quote opens', async () => {
    const file = join(tempDir(), 'quote.csv');
    // Line 5 (the fourth row) opens a quote that never closes: the three rows after it are inside it.
    const rows = Array.from({ length: 7 }, (_, i) => (i === 3 ? csvRow(i).replace(`Item ${i}`, `"Item ${i}`) : csvRow(i)));
    writeFileSync(file, `${[HEADER, ...rows].join('\n')}\n`);
    await expectCut(file, 4, ':5', /a quoted value \(column "title"\) opens in this row and is never closed: the file ends inside it/, /a quoted value \(column "title"\) opens on this line and is never closed/);
  });

  it('truncated JSON array: the records before the cut, then the record it cuts', async () => {
    const file = join(tempDir(), 'cut.json');
    const text = `[${Array.from({ length: 4 }, (_, i) => record(i)).join(',\n')}]`;
    writeFileSync(file, text.slice(0, text.indexOf(skuOf(3)) + 4));
    await expectCut(file, 4, '#4', /record 4 is cut off: the file ends inside it/, /the file ends inside record 4: it is cut short/);
  });

  it('NDJSON whose last line is torn (no line break, its JSON unfinished): a cut input, the torn line an invalid row at its line', async () => {
    const file = join(tempDir(), 'cut.ndjson');
    const lines = Array.from({ length: 4 }, (_, i) => record(i));
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 40)}`);
    await expectCut(file, 4, ':4', /the line is cut off: the file ends inside its JSON/, /the file ends inside the JSON of this line, which has no line break/);
  });

  it('gzip cut short: every whole row decompressed is read, the row it cuts is reported at its line', async () => {
    const file = join(tempDir(), 'cut.csv.gz');
    const rows = Array.from({ length: 600 }, (_, i) => csvRow(i));
    const compressed = gzipSync(`${[HEADER, ...rows].join('\n')}\n`);
    const cut = compressed.subarray(0, Math.floor(compressed.length / 2));
    writeFileSync(file, cut);
    // What the cut half decompresses to: the rows whole in it, and a part of the next.
    const text = (await import('node:zlib')).gunzipSync(cut, { finishFlush: 2 }).toString();
    const whole = text.split('\n').length - 2;
    expect(text.endsWith('\n')).toBe(false);
    await expectCut(file, whole + 1, `:${whole + 2}`, /the row is cut off: reading stopped inside it \(the compressed data ends early/, /the compressed data ends early \(unexpected end of file\): the file is cut short/);
  });
});

describe.concurrent('gzip data followed by other bytes', () => {
  it('every row of the gzip data is read and reported once; the error names the file, the line and the byte where the other bytes start (exit 4)', async () => {
    const file = join(tempDir(), 'trailing.csv.gz');
    const rows = Array.from({ length: 3000 }, (_, i) => csvRow(i));
    const compressed = gzipSync(`${[HEADER, ...rows].join('\n')}\n`);
    writeFileSync(file, Buffer.concat([compressed, Buffer.from('not gzip data')]));
    const [published, validated] = await Promise.all([publish(file), runCli(['validate', file])]);
    const error = `error ${file}:3002: not read to its end: the gzip data ends at byte ${compressed.length.toLocaleString('en-US')} of the file, and bytes that are not gzip data follow it`;

    expect(published.result.code, published.result.stderr).toBe(4);
    // The run stops at the source's error: rows read but not yet sent are reported not attempted, never lost.
    expect(published.summary).toMatchObject({ rows: 3000, invalid: 0, complete: false });
    expect(published.summary.published + published.summary.not_attempted).toBe(3000);
    expect(published.rows.map((row) => row.sku)).toEqual(rows.map((_, i) => skuOf(i)));
    expect(published.result.stderr).toContain(error);
    expect(published.result.stderr).not.toMatch(/^\s+at /m);

    expect(validated.code, validated.stderr).toBe(4);
    expect(validated.stderr).toContain('3,000 rows: 3,000 valid, 0 invalid');
    expect(validated.stderr).toContain(error);
  });
});

describe.concurrent('empty sources count no row', () => {
  it.each([
    ['a 0-byte CSV (no header)', 'empty.csv', /empty\.csv:1: the file is empty; its first line should name the columns/],
    ['a 0-byte JSON file', 'empty.json', /empty\.json:1: the file is empty; expected a JSON array of objects/],
  ])('%s holds no catalog: 0 rows (not "1 rows"), exit 4 naming it', async (_name, name, error) => {
    const file = join(tempDir(), name);
    writeFileSync(file, '');
    const [published, validated] = await Promise.all([publish(file), runCli(['validate', file])]);
    expect(published.result.code, published.result.stderr).toBe(4);
    expect(published.summary).toMatchObject({ rows: 0, complete: false });
    expect(published.rows).toEqual([]);
    expect(published.result.stderr).toContain('0 rows in');
    expect(published.result.stderr).toMatch(error);
    expect(validated.code, validated.stderr).toBe(4);
    expect(validated.stderr).toContain('0 rows: 0 valid, 0 invalid');
    expect(validated.stderr).toMatch(error);
  });

  it('a CSV with only its header, an empty JSON array and an empty NDJSON file are empty catalogs: 0 rows, exit 0', async () => {
    const dir = tempDir();
    const files = [
      ['header.csv', `${HEADER}\n`],
      ['empty-array.json', '[]'],
      ['empty.ndjson', ''],
    ].map(([name, content]) => {
      const file = join(dir, name!);
      writeFileSync(file, content!);
      return file;
    });
    const [published, validated] = await Promise.all([publish(files.join('\0')), runCli(['validate', ...files])]);
    expect(published.result.code, published.result.stderr).toBe(0);
    expect(published.summary).toMatchObject({ rows: 0, complete: true });
    expect(published.rows).toEqual([]);
    expect(published.result.stderr).toContain('✔ 0 rows in');
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr.trim()).toBe('0 rows: 0 valid, 0 invalid');
  });
});

describe.concurrent('a CSV header with columns that have no name (a spreadsheet ends every line with empty columns)', () => {
  it('is read: empty cells there give nothing, a value there makes its row invalid at file:line naming the column number; publish and validate alike', async () => {
    const file = join(tempDir(), 'trailing.csv');
    const rows = Array.from({ length: 4 }, (_, i) => `${csvRow(i)},,${i === 2 ? 'stray' : ''}`);
    writeFileSync(file, `${HEADER},,\n${rows.join('\n')}\n`);
    const [published, validated] = await Promise.all([publish(file), runCli(['validate', file, '--json'])]);
    const error = 'the value in column 11 sits under a column with no name in the header row: name the column in the header, or empty the cell';

    expect(published.result.code, published.result.stderr).toBe(1);
    expect(published.summary).toMatchObject({ rows: 4, published: 3, invalid: 1, complete: true });
    expect(published.rows.map((row) => [row.line, row.sku, row.outcome])).toEqual([
      ['2', skuOf(0), 'published'],
      ['3', skuOf(1), 'published'],
      ['4', '', 'invalid'],
      ['5', skuOf(3), 'published'],
    ]);
    expect(published.rows[2]?.error).toBe(`(record): ${error}`);
    expect(published.result.stderr).not.toMatch(/^\s+at /m);

    expect(validated.code, validated.stderr).toBe(1);
    const json = JSON.parse(validated.stdout) as { rows: number; valid: number; invalid: number; errors: { message: string }[] };
    expect(json).toMatchObject({ rows: 4, valid: 3, invalid: 1 });
    expect(json.errors.map((e) => e.message)).toEqual([error]);
  });

  it('is read with --map: the renamed column is found beside unnamed ones, whose values are refused at their row', async () => {
    const file = join(tempDir(), 'mapped.csv');
    const header = HEADER.replace(/^sku,/, 'Item Number,,');
    const rows = Array.from({ length: 3 }, (_, i) => csvRow(i).replace(/^([^,]*),/, `$1,${i === 1 ? 'x' : ''},`));
    writeFileSync(file, `${header}\n${rows.join('\n')}\n`);
    const validated = await runCli(['validate', file, '--map', 'sku=Item Number']);
    expect(validated.code, validated.stderr).toBe(1);
    expect(validated.stderr).toContain('3 rows: 2 valid, 1 invalid');
    expect(validated.stdout).toContain(`${file}:3: the value in column 2 sits under a column with no name in the header row`);
    expect(validated.stderr).not.toContain('not read by any listing field');
  });
});
