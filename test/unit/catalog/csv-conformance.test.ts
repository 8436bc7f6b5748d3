import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRecordError, openRecords, type RecordItem } from '../../../src/catalog/read-records.js';
import { bytes, collect, collectUntilError } from '../../helpers/sources-collect.js';
import { csvRecords } from '../../../src/catalog/formats/csv.js';
import { openCatalog } from '../../../src/catalog/open-catalog.js';
import { SourceError, UsageError } from '../../../src/errors.js';

/** ../shared/testdata beside the project root; CI has it, a fresh clone does not. */
const TESTDATA = fileURLToPath(new URL('../../../../shared/testdata/', import.meta.url));
const present = existsSync(TESTDATA);
if (!present) console.warn(`csv-conformance: skipped, ${TESTDATA} is absent (the suites are not redistributed)`);

function csvFiles(folder: string): string[] {
  return readdirSync(join(TESTDATA, folder))
    .filter((name) => name.endsWith('.csv'))
    .sort();
}

function expected(path: string): Record<string, string>[] {
  const value = JSON.parse(readFileSync(path, 'utf8')) as unknown[];
  // sineemore writes most expectations as rows of cells, header first; turn them into records.
  if (value.length > 0 && Array.isArray(value[0])) {
    const [header, ...rows] = value as string[][];
    return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]!])));
  }
  return value as Record<string, string>[];
}

async function read(path: string): Promise<RecordItem[]> {
  return collect((await openRecords(path, {})).records);
}

/** The items read and the SourceError that stopped the reading, if one did (a bad header, an unclosed quote). */
async function readStopped(path: string): Promise<{ items: RecordItem[]; stop: SourceError | undefined }> {
  const { items, error } = await collectUntilError((await openRecords(path, {})).records);
  if (error !== undefined && !(error instanceof SourceError)) throw error;
  return { items, stop: error };
}

/** The line of each error item, then `stop N` for the line where reading stopped. */
async function faults(path: string): Promise<string[]> {
  const { items, stop } = await readStopped(path);
  return [...items.filter(isRecordError).map((e) => String(e.location.line)), ...(stop === undefined ? [] : [`stop ${stop.location.line}`])];
}

function fieldsOf(items: readonly RecordItem[]): unknown[] {
  return items.map((item) => (isRecordError(item) ? { error: item.error, line: item.location.line } : item.fields));
}

describe.skipIf(!present)('CSV conformance: csv-spectrum', () => {
  // location_coordinates does not match its own expected file upstream (README): the suite is the other 11.
  const cases = present ? csvFiles('csv-spectrum/csvs').filter((name) => name !== 'location_coordinates.csv') : [];

  it('has the 11 consistent cases', () => {
    expect(cases).toHaveLength(11);
  });

  it.each(cases)('%s parses to its json', async (name) => {
    const items = await read(join(TESTDATA, 'csv-spectrum/csvs', name));
    expect(fieldsOf(items)).toEqual(expected(join(TESTDATA, 'csv-spectrum/json', name.replace(/\.csv$/, '.json'))));
  });

  it('locates multi-line records at the physical line they start on (CRLF inside quotes included)', async () => {
    const items = await read(join(TESTDATA, 'csv-spectrum/csvs/newlines_crlf.csv'));
    expect(items.map((item) => item.location.line)).toEqual([2, 3, 5]);
  });
});

describe.skipIf(!present)('CSV conformance: csv-spectrum extras (informative)', () => {
  it('keeps NULL as written, quoted or not (upstream reads the bare one as missing); an empty value stays empty', async () => {
    const items = await read(join(TESTDATA, 'csv-spectrum-extras/null.csv'));
    expect(fieldsOf(items)).toEqual([
      { a: '1', b: '', c: '2' },
      { a: '3', b: 'NULL', c: '4' },
      { a: '5', b: 'NULL', c: '6' },
    ]);
  });

  it('reads the Apple feed (\x01 fields, \x02 before each line end) as one column: its closing quote followed by \x01 makes line 4 invalid, and line 5 is read', async () => {
    const path = join(TESTDATA, 'csv-spectrum-extras/newlines_as_ctrl_chars.csv');
    const { items, stop } = await readStopped(path);
    const column = '#This is a Comment. This is an example from the Apple Enterprise Partner Feed format.\x02';
    expect(fieldsOf(items)).toEqual([
      { [column]: 'a\x01b\x01c\x02' },
      { [column]: '1\x012\x013\x02' },
      { error: expect.stringMatching(/a quote inside the quoted value .* must be doubled/) as string, line: 4 },
      { [column]: '7\x018\x019\x02' },
    ]);
    expect(await faults(path)).toEqual(['4']);
    expect(stop).toBeUndefined();
  });

  it('reads CR-only line ends', async () => {
    const path = join(TESTDATA, 'csv-spectrum-extras/newlines_cr.csv');
    expect(fieldsOf(await read(path))).toEqual(expected(join(TESTDATA, 'csv-spectrum-extras/newlines_cr.json')));
  });

  it('reports Latin-1 bytes as invalid UTF-8 at their line instead of guessing', async () => {
    const items = await read(join(TESTDATA, 'csv-spectrum-extras/latin1.csv'));
    expect(fieldsOf(items)).toEqual([{ a: '1', b: '2', c: '3' }, { error: expect.stringMatching(/not valid UTF-8/) as string, line: 3 }]);
  });
});

describe.skipIf(!present)('CSV conformance: sineemore csv-test-data', () => {
  const all = present ? csvFiles('sineemore-csv-test-data/csv') : [];
  const bad = all.filter((name) => name.startsWith('bad-'));
  // all-empty.csv expects a header with one empty column name; this reader reports an empty header instead (a
  // catalog's columns must have names), so it is checked separately below.
  const valid = all.filter((name) => !name.startsWith('bad-') && name !== 'all-empty.csv');

  it.each(valid)('%s parses to its json', async (name) => {
    const items = await read(join(TESTDATA, 'sineemore-csv-test-data/csv', name));
    expect(fieldsOf(items)).toEqual(expected(join(TESTDATA, 'sineemore-csv-test-data/json', name.replace(/\.csv$/, '.json'))));
  });

  it('all-empty.csv stops at a header without column names, at line 1', async () => {
    const path = join(TESTDATA, 'sineemore-csv-test-data/csv/all-empty.csv');
    const { items, stop } = await readStopped(path);
    expect(items).toEqual([]);
    expect(stop?.message).toBe(`${path}:1: the header row is empty; the first line should name the columns`);
  });

  it('has the seven bad files', () => {
    expect(bad).toHaveLength(7);
  });

  // bad-header-wrong-header.csv is a well-formed header without rows, like header-no-rows.csv (which must parse):
  // only a check of the column names can reject it, and that is the mapping layer's (checked below).
  const rejectable = bad.filter((name) => name !== 'bad-header-wrong-header.csv');

  it.each(rejectable)('%s is rejected with a line number', async (name) => {
    const { items, stop } = await readStopped(join(TESTDATA, 'sineemore-csv-test-data/csv', name));
    const locations = [...items.filter(isRecordError).map((e) => e.location), ...(stop === undefined ? [] : [stop.location])];
    expect(locations.length).toBeGreaterThan(0);
    for (const location of locations) {
      expect(location.line).toBeGreaterThanOrEqual(1);
      expect(location.source).toContain(name);
    }
  });

  it('rejects each bad file at the line of its fault; one that cannot be read past it stops there', async () => {
    const lines: Record<string, string[]> = {};
    for (const name of rejectable) lines[name] = await faults(join(TESTDATA, 'sineemore-csv-test-data/csv', name));
    expect(lines).toEqual({
      'bad-header-less-fields.csv': ['2'],
      'bad-header-more-fields.csv': ['2'],
      // An empty file: no row, so no item; reading stops at line 1.
      'bad-header-no-header.csv': ['stop 1'],
      // The unclosed quote's row is reported, and nothing after it can be read.
      'bad-missing-quote.csv': ['2', 'stop 2'],
      'bad-quotes-with-unescaped-quote.csv': ['2'],
      'bad-unescaped-quote.csv': ['2'],
    });
  });

  it('bad-header-wrong-header.csv reads as a header without rows, and the catalog rejects its header when it is opened', async () => {
    const path = join(TESTDATA, 'sineemore-csv-test-data/csv/bad-header-wrong-header.csv');
    expect(await read(path)).toEqual([]);
    const opened = openCatalog(path);
    await expect(opened).rejects.toThrow(UsageError);
    await expect(opened).rejects.toThrow(/has no sku column/);
    // With the SKU mapped to one of its columns, the same file is a catalog of no rows.
    expect(await collect((await openCatalog(path, { map: { sku: 'qux' } })).drafts)).toEqual([]);
  });

  it.each([
    ['shopify', '"Handle", "Variant SKU"'],
    ['woocommerce', '"Type", "SKU", "Name"'],
    ['magento', '"sku", "product_type"'],
    ['prestashop', '"Reference #"'],
  ] as const)('bad-header-wrong-header.csv: preset %s refuses its header when it is opened, though no row follows it', async (preset, missing) => {
    const path = join(TESTDATA, 'sineemore-csv-test-data/csv/bad-header-wrong-header.csv');
    const error = await openCatalog(path, { preset }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`preset ${preset}: ${path} has no ${missing} column; is it a ${preset} product export?`);
  });
});

describe.skipIf(!present)('CSV conformance: gebi csv-test (hostile input)', () => {
  const files = present ? csvFiles('gebi-csv-test') : [];
  // Upstream states no expected output, only that a reader must not crash or hang: here, what this reader makes of
  // each file, read to the end within the time limit. Per item: its line, and whether it is a record or an error.
  const outcomes: Record<string, string[]> = {
    'evil.csv': ['2 record', '4 record', '5 record', '6 record', '7 error', '8 record', '9 error', '10 record', '11 record'],
    // A bad header: not a row, so no item; reading stops at line 1.
    'evil1.csv': ['1 stop'],
    // `,foo` and no rows: a header whose first column has no name, accepted while no row puts a value under it.
    'evil2.csv': [],
  };

  it('has the three files', () => {
    expect(files).toEqual(Object.keys(outcomes));
  });

  it.each(files)('%s is read to the end without crashing or hanging, every item located', { timeout: 5_000 }, async (name) => {
    const path = join(TESTDATA, 'gebi-csv-test', name);
    const { items, stop } = await readStopped(path);
    expect([...items, ...(stop === undefined ? [] : [stop])].every((item) => item.location.source === path)).toBe(true);
    const seen = items.map((item) => `${item.location.line} ${isRecordError(item) ? 'error' : 'record'}`);
    expect(stop === undefined ? seen : [...seen, `${stop.location.line} stop`]).toEqual(outcomes[name]);
  });

  it('keeps a multi-line quoted value whole and reports the bare quote of evil.csv', async () => {
    const items = await read(join(TESTDATA, 'gebi-csv-test/evil.csv'));
    expect(fieldsOf(items.slice(0, 1))).toEqual([{ character: 'Inigo', quote: 'You killed my father\nDarth, I am your father' }]);
    expect(fieldsOf(items.slice(4, 5))).toEqual([{ error: expect.stringContaining('a quote inside the unquoted value') as string, line: 7 }]);
  });
});

/** Every CSV file of the suites and the catalog exports (README), the exports' big Magento file aside. */
function everyCsv(): string[] {
  const folders = ['csv-spectrum/csvs', 'csv-spectrum-extras', 'sineemore-csv-test-data/csv', 'gebi-csv-test', 'catalogs/shopify', 'catalogs/magento2-sample-data', 'catalogs/commercetools-sunrise-data'];
  return folders.flatMap((folder) => csvFiles(folder).map((name) => `${folder}/${name}`)).filter((file) => !file.endsWith('ConfigurableSampleData__products.csv'));
}

/** csvRecords over the file cut into `chunkSize`-byte chunks: the header read, the items, the message that stopped it. */
async function scanned(file: string, fastScan: boolean, chunkSize?: number): Promise<unknown[]> {
  const path = join(TESTDATA, file);
  const header: (readonly string[])[] = [];
  const input = bytes(readFileSync(path), chunkSize);
  const { items, error } = await collectUntilError(csvRecords(input, { source: path, delimiter: ',', fastScan, onHeader: (columns) => header.push(columns) }));
  return [...header, ...items, ...(error === undefined ? [] : [{ stop: error.message }])];
}

describe.skipIf(!present)('CSV conformance: the fast scanner reads every file as csv-parse alone does', () => {
  it.each(present ? everyCsv() : [])('%s: the same items, located alike, in whole and in 1-byte chunks', async (file) => {
    const reference = await scanned(file, false);
    expect(reference.length).toBeGreaterThan(0);
    expect(await scanned(file, true)).toEqual(reference);
    expect(await scanned(file, true, 1)).toEqual(reference);
  });
});
