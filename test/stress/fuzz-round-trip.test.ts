/**
 * Issue 21: no value changed in silence, no secret or runner command in what the tool shows. Property-based round
 * trips (fast-check) over the shapes hostile catalogs take: numbers JS would change (2^53 + 1, 1e400, 1e-400, -0,
 * 1.0, 1E2, long decimals), bare CR among LF and CRLF line ends, C0/C1/DEL/separator/bidi controls, nesting up to
 * and past the 64-level limit, UTF-16 LE/BE with and without a BOM, long unquoted cells, workflow-command text
 * (`::error::`, `##[`), and URLs with credentials. Each generated catalog is written as CSV, JSON or NDJSON, read
 * through openCatalog and prepared as publish does, and every row must come out as exactly one of:
 * - a request whose body, as the client would send it (stringifyJson), holds each value exactly as written;
 * - an invalid row, located, naming the field that is refused (an identifier with a control character, a record
 *   nested deeper than 64) and no other row changed by it.
 * Alongside, the text the tool shows is fuzzed: every line through runnerSafe can start no workflow command, and a
 * URL with credentials through redact keeps none of them.
 *
 * The seed is fixed (printed; FUZZ_SEED=N to vary, FUZZ_SCALE=K for K times the runs).
 */
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareCatalog } from '../../src/prepare/index.js';
import type { ListingDefaults } from '../../src/prepare/types.js';
import { JsonNumber } from '../../src/json-number.js';
import { parseJsonText, MAX_JSON_DEPTH } from '../../src/json-text.js';
import { openCatalog } from '../../src/catalog/open-catalog.js';
import { stringifyJson } from '../../src/json-number.js';
import { runnerSafe } from '../../src/printable.js';
import { redact } from '../../src/secrets.js';
import { redactSourceName } from '../../src/secret-url.js';
import { count, counts, InputFiles, params, SCALE, SEED } from './fuzz-check.js';

const files = new InputFiles();
const started = Date.now();
/** Rows round-tripped, over all catalogs. */
let rows = 0;
console.log(`fuzz-round-trip: FUZZ_SEED=${SEED} FUZZ_SCALE=${SCALE} (set FUZZ_SEED to repeat or vary the inputs)`);

afterAll(() => {
  const by = [...counts.entries()].map(([name, n]) => `${name} ${n}`).join(', ');
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(`fuzz-round-trip: ${total} inputs in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}: ${by} (${rows} rows); 0 crashes, 0 silent changes`);
});

const DEFAULTS: ListingDefaults = {
  shape: 'flat',
  saved_defaults: false,
  marketplace: 'EBAY_US',
  merchant_location_key: 'LOC-1',
  fulfillment_policy_id: 'F-1',
  payment_policy_id: 'P-1',
  return_policy_id: 'R-1',
};

/** Characters an identifier must refuse: C0 (NUL, TAB, CR, LF...), DEL, C1, line/paragraph separators, bidi controls. */
const CONTROLS = ['\0', '\x01', '\t', '\n', '\r', '\x1b', '\x7f', '\x85', '\x9b', '\u2028', '\u2029', '\u202e', '\u2066', '\u200e'];
/** What outside text carries to attack a terminal or a CI runner, or to break CSV and JSON, but is valid in a value. */
const TRICKY = ['::warning file=x::pwned', '::error::x', '##[error]x', '##vso[task.setvariable]x', '"', "'", ',', ';', '|', '=1+2', '@cmd', 'é', '😀', '\uFEFF', '%0A', '\\', '{', '[', '::', ' '];

/** A JSON number's text, from the forms JS reads back the same and the ones it would change. */
const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('9007199254740993', '-9007199254740993', '1e400', '-1e400', '1e-400', '-0', '0', '1.0', '1E2', '1e2', '2.50', '0.1000000000000000055511151231257827', '123456789012345678901234567890', '5e-324', '1.7976931348623157e309', '0.0', '-0.0e0', '12.5', '3'),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.nat({ max: 999999 }), fc.integer({ min: -400, max: 400 }), fc.boolean()).map(([whole, fraction, exponent, big]) => `${whole}.${fraction}${big ? 'E' : 'e'}${exponent >= 0 ? '+' : ''}${exponent}`),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => (Object.is(value, -0) ? '-0' : String(value))),
);

/** An identifier's core: plain, or with one character of outside text inside it (never at an end: ends are trimmed). */
const identifier = (prefix: string): fc.Arbitrary<{ text: string; control: boolean }> =>
  fc.tuple(fc.stringMatching(/^[A-Z0-9-]{1,8}$/), fc.option(fc.oneof(fc.constantFrom(...CONTROLS).map((c) => ({ c, control: true })), fc.constantFrom(...TRICKY.filter((t) => t.trim() !== '')).map((c) => ({ c, control: false }))), { nil: undefined }), fc.stringMatching(/^[A-Z0-9]{1,4}$/)).map(([head, inside, tail]) => ({
    text: `${prefix}${head}${inside?.c ?? ''}${tail}`,
    control: inside?.control ?? false,
  }));

/** Free text (a note): anything a value may hold, CR and LF, controls, runner commands, long runs; never trimmed away. */
const freeText: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 4, arbitrary: fc.array(fc.constantFrom(...CONTROLS, ...TRICKY, 'a', 'b c', '\r\n', '\n\r'), { maxLength: 8 }).map((parts) => parts.join('')) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', 'é', '\r', ','), fc.integer({ min: 1_000, max: 40_000 })).map(([unit, times]) => unit.repeat(times)) },
  )
  .map((text) => `<${text}>`);

/** An image URL, with credentials in its userinfo, query or fragment now and then: sent as written, never shown. */
const imageUrl: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('', 'user:CANARYPASS@', 'CANARYUSER@'), fc.constantFrom('', '?token=CANARYTOK', '?X-Amz-Credential=AKIA%2FCANARY&X-Amz-Signature=CANARYSIG', '?a=1&access_token=CANARYTOK#x', '?sig=CANARYSIG&sv=1', '?api_key=CANARYKEY'), fc.nat({ max: 999 }))
  .map(([user, query, n]) => `https://${user}img.example/p/${n}.jpg${query}`);

interface Row {
  sku: { text: string; control: boolean };
  condition: { text: string; control: boolean };
  note: string;
  image: string;
  price: string;
  /** Arrays nested this deep under overrides.deep (JSON and NDJSON only); the record is then 2 + depth deep. */
  depth: number;
}

const row: fc.Arbitrary<Row> = fc.record({
  sku: identifier('S'),
  condition: identifier('C'),
  note: freeText,
  image: imageUrl,
  price: numberText,
  depth: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: 55, max: 70 }) }, { weight: 1, arbitrary: fc.constantFrom(1, 200, 5_000) }),
});

type Encoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16be' | 'utf16le-bom' | 'utf16be-bom';
const EOLS = ['\n', '\r\n', '\r'] as const;

interface Catalog {
  format: 'csv' | 'json' | 'ndjson';
  encoding: Encoding;
  rows: Row[];
  /** The line end after each CSV or NDJSON row (mixed at will). */
  eols: number[];
}

const catalog: fc.Arbitrary<Catalog> = fc.record({
  format: fc.constantFrom('csv', 'json', 'ndjson'),
  encoding: fc.constantFrom<Encoding>('utf8', 'utf8', 'utf8', 'utf8-bom', 'utf16le', 'utf16be', 'utf16le-bom', 'utf16be-bom'),
  rows: fc.array(row, { minLength: 1, maxLength: 5 }),
  eols: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
});

/** Row `i`'s SKU: unique in its catalog, so that no duplicate check interferes. */
const skuOf = (r: Row, i: number): string => `${i}${r.sku.text}`;

function nested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function recordText(r: Row, i: number): string {
  const deep = r.depth > 0 ? `,"deep":${nested(r.depth)}` : '';
  return `{"sku":${JSON.stringify(skuOf(r, i))},"images_source":[${JSON.stringify(r.image)}],"overrides":{"condition":${JSON.stringify(r.condition.text)},"note":${JSON.stringify(r.note)},"price":${r.price}${deep}}}`;
}

function catalogText(c: Catalog): string {
  if (c.format === 'json') return `[${c.rows.map(recordText).join(',\n')}]`;
  if (c.format === 'ndjson') return c.rows.map((r, i) => `${recordText(r, i)}${EOLS[c.eols[i % c.eols.length] ?? 0]}`).join('');
  const header = 'sku,images_source,overrides.condition,overrides.note,overrides.price';
  const lines = c.rows.map((r, i) => stringify([[skuOf(r, i), r.image, r.condition.text, r.note, r.price]], { eof: false, quoted_match: /[\r\n]/ }));
  return [header, ...lines].map((line, i) => `${line}${EOLS[c.eols[i % c.eols.length] ?? 0]}`).join('');
}

function encoded(text: string, encoding: Encoding): Buffer {
  const bom = encoding.endsWith('-bom') ? '\uFEFF' : '';
  const whole = bom + text;
  if (encoding.startsWith('utf16le')) return Buffer.from(whole, 'utf16le');
  if (encoding.startsWith('utf16be')) return Buffer.from(whole, 'utf16le').swap16();
  return Buffer.from(whole, 'utf8');
}

/** Text as UTF-8 can hold it: a lone surrogate becomes U+FFFD, as any writer makes it. */
const asWritten = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

/** The number a body holds as its text: a JsonNumber's own, or the text JS writes for a plain number. */
function numberTextOf(value: unknown): string | undefined {
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  return undefined;
}

interface Outcome {
  kind: string;
  body?: string;
  issues: Array<{ path: string; message: string }>;
  location: unknown;
}

async function readPrepared(path: string): Promise<Outcome[]> {
  const opened = await openCatalog(path);
  const outcomes: Outcome[] = [];
  for await (const prepared of prepareCatalog(opened, DEFAULTS)) {
    const p = prepared as unknown as { kind: string; request?: unknown; issues?: Array<{ path: string; message: string }>; location: unknown };
    outcomes.push({ kind: p.kind, ...(p.request === undefined ? {} : { body: stringifyJson(p.request) }), issues: p.issues ?? [], location: p.location });
  }
  return outcomes;
}

function checkRow(c: Catalog, r: Row, i: number, outcome: Outcome | undefined): void {
  const where = `row ${i + 1} of a ${c.format} catalog in ${c.encoding}`;
  expect(outcome, `${where}: no outcome`).toBeDefined();
  const tooDeep = c.format !== 'csv' && 2 + r.depth > MAX_JSON_DEPTH;
  if (tooDeep || r.sku.control || r.condition.control) {
    expect(outcome!.kind, `${where}: must be refused`).toBe('invalid');
    expect(outcome!.body).toBeUndefined();
    expect(outcome!.location, `${where}: located`).toBeTruthy();
    const paths = outcome!.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    if (tooDeep) expect(paths, where).toMatch(/deeper than 64/);
    else if (r.sku.control) expect(paths, where).toMatch(/^sku|; sku/);
    else expect(paths, where).toMatch(/condition/);
    return;
  }
  expect(outcome!.kind, `${where}: ${outcome!.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`).toBe('ready');
  const sent = parseJsonText(outcome!.body!) as { sku: string; images_source: string[]; overrides: Record<string, unknown> };
  expect(sent.sku, `${where}: sku`).toBe(asWritten(skuOf(r, i)));
  expect(sent.images_source, `${where}: image`).toEqual([r.image]);
  expect(sent.overrides.condition, `${where}: condition`).toBe(r.condition.text);
  expect(sent.overrides.note, `${where}: note`).toBe(asWritten(r.note));
  if (c.format === 'csv') expect(sent.overrides.price, `${where}: a CSV cell stays text`).toBe(r.price);
  else expect(numberTextOf(sent.overrides.price), `${where}: the number as written`).toBe(r.price);
  if (c.format !== 'csv' && r.depth > 0) expect(stringifyJson(sent.overrides.deep), `${where}: nesting kept`).toBe(nested(r.depth));
}

async function roundTrip(c: Catalog): Promise<void> {
  const text = catalogText(c);
  const path = files.write(encoded(text, c.encoding), `.${c.format}`);
  const outcomes = await readPrepared(path);
  expect(outcomes.length, `one outcome per row of a ${c.format} catalog in ${c.encoding}`).toBe(c.rows.length);
  c.rows.forEach((r, i) => checkRow(c, r, i, outcomes[i]));
  rows += c.rows.length;
  files.remove(path);
}

describe('round trip: every value read is the value sent, or its row refused with a located error', () => {
  const runs = Number(process.env.FUZZ_ROUND_TRIPS ?? '35000');
  it(`${runs} catalogs (CSV/JSON/NDJSON, UTF-8/16, mixed line ends, hostile values)`, async () => {
    await fc.assert(
      fc.asyncProperty(catalog, async (c) => {
        count('round trip');
        await roundTrip(c);
      }),
      { ...params(101, runs), interruptAfterTimeLimit: 900_000 * Math.max(1, SCALE) },
    );
  });
});

/** A line the runner would take as a workflow command: `::name` at its start (after blanks), or `##[` anywhere. */
function isRunnerCommand(line: string): boolean {
  return /^\s*::/.test(line) || line.includes('##[') || line.includes('##vso[');
}

describe('what the tool shows: no runner command, no credential', () => {
  const runs = Number(process.env.FUZZ_OUTPUT_RUNS ?? '35000');
  const shown = fc.array(fc.oneof(fc.constantFrom(...TRICKY, ...CONTROLS, '\n', '\r\n', '\r', '::', ':', '#', '##', '[', ' ', '\t', '\u001b[31m'), fc.string({ maxLength: 4 })), { maxLength: 16 }).map((parts) => parts.join(''));

  it(`${runs} texts through runnerSafe: no line starts a workflow command`, () => {
    fc.assert(
      fc.property(shown, (text) => {
        count('runner-safe line');
        // The runner splits on LF (a CR before it is dropped); a bare CR is not a line end to it, but is to a terminal.
        for (const line of runnerSafe(text).split(/\r\n|\n|\r/)) expect(isRunnerCommand(line), JSON.stringify(line)).toBe(false);
      }),
      params(102, runs),
    );
  });

  it(`${runs} URLs with credentials through redact and redactSourceName: none of them left`, () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/).map((s) => `Z${s}Q`);
    const url = fc
      .tuple(fc.constantFrom('https', 'http', 's3', 'HTTPS'), secret, secret, fc.constantFrom('token', 'access_token', 'api_key', 'apikey', 'sig', 'X-Amz-Signature', 'x-amz-credential', 'X-Amz-Security-Token', 'client_secret', 'password', '%74oken', 'refresh_token', 'x-goog-signature'), fc.constantFrom('?', '?a=1&', '?a=1;', '#'), fc.constantFrom('', ' then text', '", more', ') done', '\n::error::x'))
      .map(([scheme, pass, value, name, join, after]) => ({ text: `${scheme}://user:${pass}@host.example/c.csv${join}${name}=${value}${after}`, secrets: [pass, value] }));
    fc.assert(
      fc.property(url, fc.constantFrom('at ', 'cannot read ', ''), ({ text, secrets }, before) => {
        count('credential URL');
        const line = `${before}${text}`;
        for (const shownText of [redact(line), redactSourceName(text)]) {
          for (const value of secrets) expect(shownText, `${JSON.stringify(line)} -> ${JSON.stringify(shownText)}`).not.toContain(value);
        }
      }),
      params(103, runs),
    );
  });
});
