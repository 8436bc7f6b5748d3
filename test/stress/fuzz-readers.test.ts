/**
 * Issue 12, item 1: the catalog readers never crash or hang. Property-based tests (fast-check) feed random bytes,
 * CSV-shaped text (quotes, delimiters, CR/LF, BOM, NUL, invalid UTF-8), JSON and NDJSON (damaged, cut) and gzip (cut,
 * corrupted, in members, twice) to every reader through openCatalog (and the Shopify and WooCommerce presets), from a
 * file of the right extension. Each reading must end in bounded time with every record a draft (located: source and
 * line, or record for JSON; an unreadable one with its issues) and at most one typed error (SourceError, UsageError);
 * see checkReading in fuzz-check.ts. Where the right answer is known it is checked whole: a reference reading with
 * csv-parse, records written with csv-stringify read back identical, the rows before damage or a gzip cut read
 * exactly, the rows of a preset export all accounted for, the same records whatever the chunking of the input.
 * Hostile inputs too big to generate at random (64 MiB lines, values and unclosed quotes, 500,000-column headers,
 * JSON nested 100,000 deep) must end in a located error or their rows, with peak RSS growing less than 200 MB.
 *
 * The seed is fixed (printed; FUZZ_SEED=N to vary, FUZZ_SCALE=K for K times the runs). A failure prints the
 * counterexample, shrunk, with the seed and path that repeat it. A reading longer than FUZZ_READ_LIMIT_MS (5000) is a
 * hang; one stuck in synchronous code is ended by a watchdog thread, which names the input and kills the worker.
 */
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { resourceUsage } from 'node:process';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { csvRecords } from '../../src/catalog/formats/csv.js';
import { sniffDelimiter } from '../../src/catalog/formats/delimiter.js';
import { jsonRecords } from '../../src/catalog/formats/json.js';
import { SNIFF_BYTES } from '../../src/catalog/formats/limits.js';
import { ndjsonRecords } from '../../src/catalog/formats/ndjson.js';
import type { RecordItem } from '../../src/catalog/read-records.js';
import type { CatalogOptions, Format } from '../../src/catalog/types.js';
import type { PresetName } from '../../src/catalog/presets/index.js';
import { SourceError, UsageError } from '../../src/errors.js';
import { brief } from '../helpers/sources-collect.js';
import {
  asExpected,
  checkReading,
  compared,
  comparisons,
  count,
  counts,
  expectedRows,
  expectedValues,
  InputFiles,
  params,
  plainContent,
  READ_LIMIT_MS,
  readCatalog,
  referenceCsv,
  SCALE,
  SEED,
  Watchdog,
  type ExpectedRow,
  type Reading,
} from './fuzz-check.js';
import {
  applyDamage,
  applyDamages,
  catalogRecord,
  csvHeader,
  csvShaped,
  csvStyle,
  damage,
  gzipAs,
  gzipForm,
  INVALID_UTF8_PIECES,
  jsonShaped,
  presetCsv,
  SHOPIFY_COLUMNS,
  tsvShaped,
  WOOCOMMERCE_COLUMNS,
  writeCsv,
  writeJson,
  writeNdjson,
  type WrittenCatalog,
} from './fuzz-inputs.js';

const files = new InputFiles();
const watchdog = new Watchdog();
const started = Date.now();
console.log(`fuzz-readers: FUZZ_SEED=${SEED} FUZZ_SCALE=${SCALE} (set FUZZ_SEED to repeat or vary the inputs)`);

afterAll(async () => {
  await watchdog.close();
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const by = [...counts.entries()].map(([name, n]) => `${name} ${n}`).join(', ');
  const whole = [...comparisons.entries()].map(([name, n]) => `${name} ${n}`).join(', ');
  console.log(`fuzz-readers: ${total} inputs in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}: ${by}; of them checked against a known answer: ${whole}; peak RSS growth on a hostile input ${Math.round(hostileGrowthMb)} MB`);
});

function formatOf(extension: string): Format | undefined {
  const name = extension.replace(/\.gz$/, '');
  if (name === '.csv' || name === '.tsv' || name === '.json' || name === '.ndjson') return name.slice(1) as Format;
  return undefined;
}

/** Writes the input, reads it through openCatalog and checks the invariants of every reading. */
async function readChecked(file: Buffer, extension: string, options: CatalogOptions = {}): Promise<{ reading: Reading; content: Buffer; complete: boolean; path: string }> {
  const path = files.write(file, extension);
  const reading = await readCatalog(path, options, watchdog);
  const { content, complete } = await plainContent(file);
  checkReading(reading, { path, format: options.format ?? formatOf(extension), content, ...(options.preset === undefined ? {} : { preset: options.preset }) });
  files.remove(path);
  return { reading, content, complete, path };
}

async function property<T>(name: string, index: number, numRuns: number, input: fc.Arbitrary<T>, run: (value: T) => Promise<void>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(input, async (value) => {
      count(name);
      await run(value);
    }),
    params(index, numRuns),
  );
}

function totalRows(reading: Reading): number {
  return reading.drafts.reduce((sum, draft) => sum + (draft.rows ?? 1), 0);
}

function errorText(error: unknown): string | undefined {
  return error === undefined ? undefined : `${(error as Error).constructor.name}: ${(error as Error).message}`;
}

/** A stream of the bytes in the chunks the cuts make. */
function chunked(bytes: Buffer, cuts: readonly number[]): Readable {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) chunks.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return Readable.from(chunks, { objectMode: false });
}

async function collectRecords(records: AsyncIterable<RecordItem>): Promise<{ items: ReturnType<typeof brief>; error: string | undefined }> {
  const items: RecordItem[] = [];
  let error: unknown;
  let timer: NodeJS.Timeout | undefined;
  const reading = (async () => {
    try {
      for await (const item of records) items.push(item);
    } catch (thrown) {
      error = thrown;
    }
  })();
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), READ_LIMIT_MS)));
  const outcome = await Promise.race([reading, timeout]);
  clearTimeout(timer);
  if (outcome === 'timeout') throw new Error(`the records did not end within ${READ_LIMIT_MS} ms: a hang`);
  if (error !== undefined && !(error instanceof SourceError) && !(error instanceof UsageError)) throw error as Error;
  return { items: brief(items), error: errorText(error) };
}

/** Peak RSS growth (MB) while `run` runs: the process's high-water mark, so these run before the fuzzing raises it. */
async function peakGrowthMb<T>(run: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = resourceUsage().maxRSS;
  const result = await run();
  return { result, growthMb: (resourceUsage().maxRSS - before) / 1024 };
}

/** What a reader may hold of a hostile input: a record of at most 1 MiB, and the buffers around it. */
const MAX_GROWTH_MB = 200;
/** The largest peak RSS growth a hostile input caused, for the summary. */
let hostileGrowthMb = 0;

describe('hostile inputs: bounded time and memory, a located error', () => {
  const MB = 1024 * 1024;
  /** Big inputs, gzip-compressed so that the files stay small, with the drafts and the error their reading must end in. */
  const cases: Array<{ name: string; file: () => Buffer; extension: string; rows: number; error: RegExp | undefined }> = [
    { name: 'a 64 MiB CSV line', file: () => gzipSync(Buffer.alloc(64 * MB, 'a')), extension: '.csv.gz', rows: 0, error: /:1: the header row/ },
    { name: 'an unclosed quote and 64 MiB after it', file: () => gzipSync(Buffer.concat([Buffer.from('sku,title\nA,"open\n'), Buffer.alloc(64 * MB, 'x\n')])), extension: '.csv.gz', rows: 1, error: /:2: not read to its end/ },
    { name: 'a header of 500,000 columns of one name', file: () => Buffer.from(`sku${',a'.repeat(500_000)}\nA\n`), extension: '.csv', rows: 0, error: /:1: the header row columns 2, 3, .* are all named "a"/ },
    { name: 'a header of 500,000 unnamed columns', file: () => Buffer.from(`sku${','.repeat(500_000)}\nA\n`), extension: '.csv', rows: 1, error: undefined },
    { name: 'a header of 150,000 columns, and rows', file: () => Buffer.from(`sku${Array.from({ length: 150_000 }, (_, i) => `,c${i}`).join('')}\n${`A${',x'.repeat(150_000)}\n`.repeat(3)}`), extension: '.csv', rows: 3, error: undefined },
    { name: 'a 64 MiB NDJSON line between two rows', file: () => gzipSync(Buffer.concat([Buffer.from('{"sku":"A"}\n{"sku":"'), Buffer.alloc(64 * MB, 'b'), Buffer.from('"}\n{"sku":"C"}\n')])), extension: '.ndjson.gz', rows: 3, error: undefined },
    { name: 'a 64 MiB JSON string', file: () => gzipSync(Buffer.concat([Buffer.from('[{"sku":"A"},{"sku":"'), Buffer.alloc(64 * MB, 'b'), Buffer.from('"}]')])), extension: '.json.gz', rows: 2, error: /#2: not read to its end/ },
    { name: 'a JSON array nested 100,000 deep', file: () => Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), extension: '.json', rows: 1, error: undefined },
    { name: 'a record nested 60,000 deep, with a byte that is not UTF-8', file: () => Buffer.concat([Buffer.from(`[{"sku":"A","deep":${'['.repeat(60_000)}${']'.repeat(60_000)},"bad":"`), INVALID_UTF8_PIECES[0]!, Buffer.from('"},{"sku":"B"}]')]), extension: '.json', rows: 2, error: undefined },
    { name: 'an NDJSON record nested 60,000 deep', file: () => Buffer.from(`{"sku":"A","deep":${'['.repeat(60_000)}${']'.repeat(60_000)}}\n{"sku":"B"}\n`), extension: '.ndjson', rows: 2, error: undefined },
    { name: '64 MiB of blank lines', file: () => gzipSync(Buffer.concat([Buffer.from('sku,title\n'), Buffer.alloc(64 * MB, '\n'), Buffer.from('A,a\n')])), extension: '.csv.gz', rows: 1, error: undefined },
  ];

  it.each(cases)('$name', async ({ file, extension, rows, error }) => {
    const path = files.write(file(), extension);
    const { result: reading, growthMb } = await peakGrowthMb(() => readCatalog(path, {}, watchdog, 45_000));
    files.remove(path);
    count('hostile');
    hostileGrowthMb = Math.max(hostileGrowthMb, growthMb);
    expect(reading.timedOut).toBe(false);
    expect(reading.drafts.length).toBe(rows);
    for (const draft of reading.drafts) expect(draft.location.source).toBe(path);
    if (error === undefined) expect(errorText(reading.error)).toBeUndefined();
    else {
      expect(reading.error).toBeInstanceOf(SourceError);
      expect((reading.error as Error).message).toMatch(error);
      expect((reading.error as Error).message.length).toBeLessThan(4000);
    }
    expect(reading.ms).toBeLessThan(30_000);
    expect(growthMb, `peak RSS grew ${Math.round(growthMb)} MB`).toBeLessThan(MAX_GROWTH_MB);
  });
});

const EXTENSIONS = ['.csv', '.tsv', '.json', '.ndjson', '.csv.gz', '.json.gz', '.ndjson.gz', '.dat'] as const;

describe('fuzzing the readers', () => {
  it('random bytes, under every name, plain and gzipped: a reading ends, located, with at most one typed error', async () => {
    await property(
      'random bytes',
      1,
      300,
      fc.record({ bytes: fc.uint8Array({ maxLength: 1024 }).map((b) => Buffer.from(b)), extension: fc.constantFrom(...EXTENSIONS), gzip: fc.option(gzipForm, { nil: undefined }) }),
      async ({ bytes, extension, gzip }) => {
        await readChecked(extension.endsWith('.gz') && gzip !== undefined ? gzipAs(bytes, gzip) : bytes, extension);
      },
    );
  });

  it('CSV-shaped text (quotes, delimiters, CR/LF, BOM, NUL, bad UTF-8) as CSV, TSV, .csv.gz and through the presets', async () => {
    await property(
      'csv-shaped',
      2,
      500,
      fc.record({ header: csvHeader, body: csvShaped(), extension: fc.constantFrom('.csv', '.tsv', '.csv.gz'), preset: fc.constantFrom<PresetName | undefined>(undefined, undefined, 'shopify', 'woocommerce'), gzip: gzipForm }),
      async ({ header, body, extension, preset, gzip }) => {
        const text = Buffer.concat([header, body]);
        await readChecked(extension === '.csv.gz' ? gzipAs(text, gzip) : text, extension, preset === undefined ? {} : { preset });
      },
    );
  });

  it('CSV-shaped rows under a good header read as a reference csv-parse reads them: every row, on its line', async () => {
    const headers = [
      { header: 'sku,title,marketplace\n', extension: '.csv' },
      { header: 'sku;title;images_source;overrides.condition\r\n', extension: '.csv' },
      { header: 'sku\ttitle\tmarketplace\n', extension: '.tsv' },
      { header: '\uFEFFsku|title|marketplace\r', extension: '.csv' },
      { header: '"sku","title"\n', extension: '.csv.gz' },
    ];
    await property('csv-reference', 3, 500, fc.record({ start: fc.constantFrom(...headers), body: csvShaped(60) }), async ({ start: { header, extension }, body }) => {
      const text = Buffer.concat([Buffer.from(header), body]);
      const { reading, complete } = await readChecked(extension.endsWith('.gz') ? gzipSync(text) : text, extension);
      const reference = complete ? referenceCsv(text, extension === '.tsv' ? '\t' : sniffDelimiter(text.subarray(0, SNIFF_BYTES))) : undefined;
      if (reference === undefined) return;
      compared('csv-reference');
      expect(errorText(reading.error)).toBeUndefined();
      expect(reading.drafts.map(asExpected)).toEqual(reference.rows);
    });
  });

  it('TSV rows with quotes inside unquoted cells read as a reference csv-parse with relax_quotes reads them: each quote a character of its value', async () => {
    await property('tsv-reference', 12, 300, tsvShaped(), async (body) => {
      const text = Buffer.concat([Buffer.from('sku\ttitle\tmarketplace\n'), body]);
      const { reading } = await readChecked(text, '.tsv');
      const reference = referenceCsv(text, '\t');
      if (reference === undefined) return;
      compared('tsv-reference');
      expect(errorText(reading.error)).toBeUndefined();
      expect(reading.drafts.map(asExpected)).toEqual(reference.rows);
    });
  });

  it('Shopify and WooCommerce exports, whole or damaged: every row is accounted for (the drafts rows add up)', async () => {
    const columns = { shopify: SHOPIFY_COLUMNS, woocommerce: WOOCOMMERCE_COLUMNS };
    await property(
      'presets',
      4,
      300,
      fc.constantFrom<PresetName & keyof typeof columns>('shopify', 'woocommerce').chain((preset) =>
        fc.record({ preset: fc.constant(preset), csv: presetCsv(columns[preset]), damage: fc.option(damage, { nil: undefined }), tail: fc.option(csvShaped(20), { nil: undefined }) }),
      ),
      async ({ preset, csv, damage: edit, tail }) => {
        let text: Buffer = tail === undefined ? csv.text : Buffer.concat([csv.text, tail]);
        if (edit !== undefined) text = applyDamage(text, edit);
        const { reading } = await readChecked(text, '.csv', { preset });
        const reference = referenceCsv(text, sniffDelimiter(text.subarray(0, SNIFF_BYTES)));
        if (reference === undefined || reference.header.join('\n') !== columns[preset].join('\n')) return;
        compared('presets');
        expect(errorText(reading.error)).toBeUndefined();
        expect(totalRows(reading)).toBe(reference.items);
      },
    );
  });

  it('JSON: token soup, and catalogs (top-level array or under --json-path) damaged and cut', async () => {
    const wrapped = fc
      .record({
        records: fc.array(catalogRecord(), { maxLength: 6 }),
        pretty: fc.boolean(),
        wrap: fc.constantFrom(undefined, 'products', 'data.items'),
        givePath: fc.boolean(),
        damages: fc.array(damage, { maxLength: 3 }),
      })
      .map(({ records, pretty, wrap, givePath, damages }) => {
        const array = writeJson(records, pretty).text.toString('utf8');
        const document = wrap === undefined ? array : wrap === 'products' ? `{"meta":{"n":1},"products":${array}}` : `{"data":{"items":${array}},"other":[1]}`;
        const bytes = applyDamages(Buffer.from(document, 'utf8'), damages);
        return { bytes, jsonPath: wrap !== undefined && givePath ? wrap : undefined };
      });
    await property(
      'json',
      5,
      400,
      fc.record({ input: fc.oneof(jsonShaped().map((bytes) => ({ bytes, jsonPath: undefined })), wrapped), gzip: fc.option(gzipForm, { nil: undefined }) }),
      async ({ input: { bytes, jsonPath }, gzip }) => {
        await readChecked(gzip === undefined ? bytes : gzipAs(bytes, gzip), gzip === undefined ? '.json' : '.json.gz', jsonPath === undefined ? {} : { jsonPath });
      },
    );
  });

  it('NDJSON: good, blank, bad, BOM, CRLF, not-UTF-8 and cut lines: a draft for every line that holds something, on its line', async () => {
    const line = fc.oneof(
      { weight: 4, arbitrary: catalogRecord().map((record) => Buffer.from(JSON.stringify(record))) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          ...['', '   ', '\t', '[1]', '"s"', 'null', '{}', '{"sku": true}', '{"sku": 12.5, "title": " t "}', '{"images_source": ["a", " b ", 1]}', '{"overrides": {"a": " x "}}', '{"overrides": "x"}', '{"sku":"a"', '{"sku":"a"}}', '{"__proto__": {"sku": "x"}}', '\uFEFF{"sku":"b"}'].map((text) => Buffer.from(text)),
        ),
      },
      { weight: 2, arbitrary: jsonShaped(10) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...INVALID_UTF8_PIECES), catalogRecord()).map(([bad, record]) => Buffer.concat([Buffer.from('{"sku":"'), bad, Buffer.from(`"${JSON.stringify(record).slice(1)}`)])) },
    );
    await property(
      'ndjson',
      6,
      400,
      fc.record({ lines: fc.array(line, { maxLength: 12 }), crlf: fc.boolean(), finalBreak: fc.boolean(), edit: fc.option(damage, { nil: undefined }), gzip: fc.option(gzipForm, { nil: undefined }) }),
      async ({ lines, crlf, finalBreak, edit, gzip }) => {
        const breakBytes = Buffer.from(crlf ? '\r\n' : '\n');
        let text: Buffer = Buffer.concat(lines.flatMap((bytes, i) => (i < lines.length - 1 || finalBreak ? [bytes, breakBytes] : [bytes])));
        if (edit !== undefined) text = applyDamage(text, edit);
        const { reading, content, complete } = await readChecked(gzip === undefined ? text : gzipAs(text, gzip), gzip === undefined ? '.ndjson' : '.ndjson.gz');
        if (!complete) return;
        compared('ndjson');
        const expected = referenceNdjson(content);
        expect(reading.drafts.map((draft) => draft.location.line)).toEqual(expected.map((row) => row.line));
        reading.drafts.forEach((draft, i) => {
          const row = expected[i]!;
          if (row.error === true) expect(draft.issues.length, `line ${row.line}`).toBeGreaterThan(0);
          else if (row.values !== undefined) expect({ line: row.line, values: draft.values, issues: draft.issues }).toEqual({ line: row.line, values: row.values, issues: [] });
        });
        const last = expected.at(-1);
        if (reading.error !== undefined) {
          // Only a last line cut inside its JSON (no line break after it) ends the reading with an error.
          expect(last?.error).toBe(true);
          expect((reading.error as SourceError).location.line).toBe(last?.line);
        }
      },
    );
  });

  it('gzip cut anywhere: never read as complete; every row before the cut is read, the row cut is reported at its place', async () => {
    await property(
      'gzip cut',
      7,
      300,
      fc.record({ format: fc.constantFrom('csv' as const, 'ndjson' as const, 'json' as const), records: fc.array(catalogRecord({ skuRequired: true }), { minLength: 1, maxLength: 10 }), style: csvStyle, at: fc.nat() }),
      async ({ format, records, style, at }) => {
        const written = format === 'csv' ? writeCsv(records, style) : format === 'ndjson' ? writeNdjson(records, style.crlf) : writeJson(records, style.crlf);
        const whole = gzipSync(written.text);
        const file = whole.subarray(0, Math.max(2, at % whole.length));
        const { reading, content, complete } = await readChecked(file, `.${format}.gz`);
        compared('gzip cut');
        expect(complete).toBe(false);
        expect(reading.error, 'a cut gzip file must not read as complete').toBeInstanceOf(SourceError);
        checkCut(reading, written, content.length, format);
      },
    );
  });

  it('rows before damage read exactly as written (values and lines), whatever follows them', async () => {
    await property(
      'prefix',
      8,
      300,
      fc.record({ format: fc.constantFrom('csv' as const, 'ndjson' as const, 'json' as const), records: fc.array(catalogRecord({ replacementChar: false }), { maxLength: 8 }), style: csvStyle, garbage: fc.oneof(csvShaped(30), jsonShaped(30)) }),
      async ({ format, records, style, garbage }) => {
        let text: Buffer;
        let expected: ExpectedRow[];
        if (format === 'csv') {
          const written = writeCsv(records, style);
          text = Buffer.concat([written.text, garbage]);
          expected = expectedRows(records, written.lines, 'csv');
        } else if (format === 'ndjson') {
          const written = writeNdjson(records, style.crlf);
          text = Buffer.concat([written.text, garbage]);
          expected = expectedRows(records, written.lines, 'ndjson');
        } else {
          const written = writeJson(records, style.crlf);
          const open = records.length === 0 ? written.text.subarray(0, written.bodyStart) : Buffer.concat([written.text.subarray(0, written.ends.at(-1)), Buffer.from(',')]);
          text = Buffer.concat([open, garbage]);
          expected = expectedRows(records, 'records', 'json');
        }
        const { reading } = await readChecked(text, `.${format}`);
        expect(reading.drafts.slice(0, expected.length).map(asExpected)).toEqual(expected);
      },
    );
  });

  it('chunk boundaries: a reader gives the same records and the same error however its input is cut into chunks', async () => {
    const csvText = fc.tuple(csvHeader, csvShaped(50)).map(([header, body]) => Buffer.concat([header, body]));
    const ndjsonText = fc.array(fc.oneof(catalogRecord().map((record) => Buffer.from(`${JSON.stringify(record)}\n`)), jsonShaped(8), fc.constantFrom(Buffer.from('\r\n'), Buffer.from('\n'), Buffer.from('\uFEFF'))), { maxLength: 10 }).map((parts) => Buffer.concat(parts));
    const jsonText = fc.oneof(jsonShaped(), fc.tuple(fc.array(catalogRecord(), { maxLength: 5 }), fc.boolean(), fc.array(damage, { maxLength: 2 })).map(([records, pretty, edits]) => applyDamages(writeJson(records, pretty).text, edits)));
    await property(
      'chunking',
      9,
      400,
      fc.oneof(
        fc.record({ kind: fc.constant('csv' as const), bytes: csvText, cuts: fc.array(fc.nat(), { maxLength: 8 }) }),
        fc.record({ kind: fc.constant('ndjson' as const), bytes: ndjsonText, cuts: fc.array(fc.nat(), { maxLength: 8 }) }),
        fc.record({ kind: fc.constant('json' as const), bytes: jsonText, cuts: fc.array(fc.nat(), { maxLength: 8 }) }),
      ),
      async ({ kind, bytes, cuts }) => {
        // A file holding U+FFFD itself and bytes that are not UTF-8: whether a row with U+FFFD is told apart depends on
        // whether the bad bytes came before it (documented: a row with U+FFFD in such a file is reported, not read).
        if (!isUtf8(bytes) && bytes.includes(Buffer.from('\uFFFD'))) return;
        const read = (stream: Readable): AsyncIterable<RecordItem> => {
          const source = 'fuzz';
          if (kind === 'csv') return csvRecords(stream, { source, delimiter: sniffDelimiter(bytes.subarray(0, SNIFF_BYTES)) });
          return kind === 'ndjson' ? ndjsonRecords(stream, { source }) : jsonRecords(stream, { source });
        };
        const whole = await collectRecords(read(Readable.from([bytes], { objectMode: false })));
        const pieces = await collectRecords(read(chunked(bytes, cuts)));
        expect(pieces).toEqual(whole);
      },
    );
  });

  it('round trip: random records written with csv-stringify (any delimiter, BOM, CRLF, quoting; plain or gzipped) read back identical, on their lines', async () => {
    await property(
      'round trip',
      10,
      250,
      fc.record({ records: fc.array(catalogRecord(), { maxLength: 15 }), style: csvStyle, gzip: fc.boolean(), tsvName: fc.boolean() }),
      async ({ records, style, gzip, tsvName }) => {
        const written = writeCsv(records, style);
        const extension = `${style.delimiter === '\t' && tsvName ? '.tsv' : '.csv'}${gzip ? '.gz' : ''}`;
        const { reading } = await readChecked(gzip ? gzipSync(written.text) : written.text, extension);
        expect(errorText(reading.error)).toBeUndefined();
        expect(reading.drafts.map(asExpected)).toEqual(expectedRows(records, written.lines, 'csv'));
      },
    );
  });

  it('round trip: the same records as JSON and NDJSON read back identical', async () => {
    await property(
      'round trip json',
      11,
      150,
      fc.record({ records: fc.array(catalogRecord(), { maxLength: 15 }), ndjson: fc.boolean(), layout: fc.boolean() }),
      async ({ records, ndjson, layout }) => {
        const written = ndjson ? writeNdjson(records, layout) : writeJson(records, layout);
        const { reading } = await readChecked(written.text, ndjson ? '.ndjson' : '.json');
        expect(errorText(reading.error)).toBeUndefined();
        expect(reading.drafts.map(asExpected)).toEqual(expectedRows(records, ndjson ? written.lines : 'records', ndjson ? 'ndjson' : 'json'));
      },
    );
  });
});

/**
 * What NDJSON must read as, line by line (lines end at LF; a CR before it and a BOM on line 1 are dropped): nothing
 * for a blank line, an error for a line that is not UTF-8, not JSON or not an object, otherwise the record. Values
 * are compared for records whose fields are all text (the others are checked by their line and kind only).
 */
function referenceNdjson(content: Buffer): ExpectedRow[] {
  const rows: ExpectedRow[] = [];
  let start = 0;
  for (let line = 1; start <= content.length; line++) {
    // CRLF, LF and a bare CR each end a line.
    const lf = content.indexOf(0x0a, start);
    const cr = content.indexOf(0x0d, start);
    const newline = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
    let bytes = content.subarray(start, newline < 0 ? content.length : newline);
    start = newline < 0 ? content.length + 1 : newline + (newline === cr && content[cr + 1] === 0x0a ? 2 : 1);
    if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    if (bytes.toString('utf8').trim() === '') continue;
    if (!isUtf8(bytes)) {
      rows.push({ line, error: true });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      rows.push({ line, error: true });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) rows.push({ line, error: true });
    else if (Object.entries(value).every(([key, field]) => typeof field === 'string' && key !== 'overrides')) rows.push({ line, values: expectedValues(value as Record<string, unknown>) });
    else rows.push({ line });
  }
  return rows;
}

/**
 * A catalog whose decompressed bytes stop after `length`: the rows whose bytes (line break included) all came are
 * read exactly; a row the bytes stop inside is one error draft at its place, never a shorter row; the error is at
 * the place of the first row not read whole (or the one after the last).
 */
function checkCut(reading: Reading, written: WrittenCatalog, length: number, format: 'csv' | 'ndjson' | 'json'): void {
  const error = reading.error as SourceError;
  const rows = written.records.length;
  if (length < written.bodyStart) {
    expect(reading.drafts).toEqual([]);
    return;
  }
  // A CSV row is whole once its bytes came, up to the CR of its CRLF (a CR at the end of the input ends a row).
  const came = (end: number): boolean => end <= length || (format === 'csv' && end - 1 === length && written.text[length - 1] === 0x0d);
  let whole = 0;
  while (whole < rows && came(written.ends[whole]!)) whole++;
  const expected = expectedRows(written.records, format === 'json' ? 'records' : written.lines, format);
  expect(reading.drafts.slice(0, whole).map(asExpected)).toEqual(expected.slice(0, whole));
  // Bytes of the next row came: for JSON, its opening brace.
  const rowStart = whole === 0 ? written.bodyStart : written.ends[whole - 1]!;
  const begun = whole < rows && (format === 'json' ? written.text.indexOf(0x7b, rowStart) < length : length > rowStart);
  const place = format === 'json' ? whole + 1 : whole < rows ? written.lines[whole]! : written.endLine;
  if (begun) {
    expect(reading.drafts.length).toBe(whole + 1);
    const cut = reading.drafts[whole]!;
    expect(format === 'json' ? cut.location.record : cut.location.line).toBe(place);
    expect(cut.issues.map((issue) => issue.message).join()).toMatch(/cut off/);
  } else expect(reading.drafts.length).toBe(whole);
  if (reading.drafts.length === 0 && error.location.line === undefined && error.location.record === undefined) return;
  expect(format === 'json' ? error.location.record : error.location.line, error.message).toBe(place);
}
