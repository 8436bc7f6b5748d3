/**
 * Generators of reader inputs for the fuzzing of test/stress/fuzz-readers.test.ts: random bytes, CSV-shaped text,
 * JSON-shaped tokens, valid catalogs (written with csv-stringify and JSON.stringify, with where each row starts and
 * ends), and the damage done to them (truncation, byte edits, gzip cut or corrupted).
 */
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { gzipSync } from 'node:zlib';

/** Bytes that are not UTF-8: a stray continuation, truncated sequences, a surrogate, an overlong form, > U+10FFFF. */
export const INVALID_UTF8_PIECES: readonly Buffer[] = [
  Buffer.from([0xff]),
  Buffer.from([0x80]),
  Buffer.from([0xc3]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf0, 0x9f, 0x98]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
];

const piece = (text: string): Buffer => Buffer.from(text, 'utf8');
const pieces = (texts: readonly string[]): fc.Arbitrary<Buffer> => fc.constantFrom(...texts.map(piece));

/** Cell text, the CSV syntax around it, and what breaks it: quotes, delimiters, line breaks, BOM, NUL, bad UTF-8. */
const csvPiece: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: pieces(['a', 'b', 'sku', 'x y', ' ', '  ', 'é', '😀', '=1+2', '-3', '+', '@x', 'A1']) },
  { weight: 3, arbitrary: pieces([',', ';', '\t', '|']) },
  { weight: 3, arbitrary: pieces(['\n', '\r\n', '\r']) },
  { weight: 3, arbitrary: pieces(['"', '""', '"a"', '" "', '"a""b"', '"a,b"', '"a\nb"', '"a\r\nb"', '"\r"']) },
  { weight: 1, arbitrary: pieces(['\uFEFF', '\0', '\u2028', '\u00a0', '\\', "'"]) },
  { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8_PIECES) },
);

/** CSV-shaped bytes: pieces of CSV syntax in any order. */
export function csvShaped(maxPieces = 80): fc.Arbitrary<Buffer> {
  return fc.array(csvPiece, { maxLength: maxPieces }).map((parts) => Buffer.concat(parts));
}

/** A TSV cell's text after its first character: quotes anywhere in it, as TSV exports write `12" pizza pan`. */
const tsvInside = pieces(['a', 'x y', '"', '""', '" ', 'é', ',', ';', '|', ' ']);

/**
 * TSV-shaped bytes: rows of cells, each unquoted text holding quotes after its first character, a quoted value
 * (holding a tab, a doubled quote, a line break), or empty; a row's cell count is mostly the header's (3).
 */
export function tsvShaped(maxRows = 12): fc.Arbitrary<Buffer> {
  const cell = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(pieces(['a', 'b', '5', 'é', ' ']), fc.array(tsvInside, { maxLength: 6 })).map(([first, rest]) => Buffer.concat([first, ...rest])) },
    { weight: 2, arbitrary: pieces(['"a\tb"', '"12"" pan"', '"a\nb"', '""']) },
    { weight: 1, arbitrary: pieces(['']) },
  );
  const row = fc.tuple(fc.array(cell, { minLength: 2, maxLength: 4 }), pieces(['\n', '\r\n', '\r'])).map(([cells, end]) => {
    const parts: Buffer[] = [];
    cells.forEach((value, i) => parts.push(...(i === 0 ? [value] : [piece('\t'), value])));
    return Buffer.concat([...parts, end]);
  });
  return fc.array(row, { maxLength: maxRows }).map((rows) => Buffer.concat(rows));
}

/** The column names of the default mapping, as the round trip writes them. */
export const CATALOG_COLUMNS = [
  'sku',
  'title',
  'marketplace',
  'merchant_location_key',
  'fulfillment_policy_id',
  'payment_policy_id',
  'return_policy_id',
  'images_source',
  'overrides.condition',
  'overrides.note',
] as const;

export const SHOPIFY_COLUMNS = ['Handle', 'Title', 'Option1 Name', 'Option1 Value', 'Variant SKU', 'Variant Price', 'Image Src', 'Variant Image', 'Google Shopping / Condition'] as const;
export const WOOCOMMERCE_COLUMNS = ['ID', 'Type', 'SKU', 'Name', 'Parent', 'Images', 'Attribute 1 value(s)'] as const;

/** Header lines a CSV-shaped body may follow: the catalog's, a preset's, a BOM, another delimiter, none, or noise. */
export const csvHeader: fc.Arbitrary<Buffer> = fc.oneof(
  pieces([
    'sku,title,marketplace\n',
    'sku,title,images_source,overrides.condition\r\n',
    '\uFEFFsku;title;marketplace\n',
    'sku\ttitle\n',
    'sku|title|marketplace\r',
    'sku\n',
    '"sku","ti""tle",marketplace\n',
    'SKU , Title\n',
    'sku,sku\n',
    'sku,,title\n',
    '__proto__,sku\n',
    '',
    `${SHOPIFY_COLUMNS.join(',')}\n`,
    `${WOOCOMMERCE_COLUMNS.join(',')}\n`,
  ]),
  csvShaped(12),
);

/** A cell a preset reads (handles, types, parents, options, SKUs and images from small sets, so rows relate). */
const presetCell = fc.constantFrom('', '', 'h1', 'h2', 'P1', '1', '2', 'id:1', 'id:2', 'simple', 'variable', 'variation', 'grouped', 'simple, virtual', 'S', 'M', 'Default Title', 'new', ' used ', 'http://x/1.jpg', 'http://x/1.jpg, http://x/2.jpg', ' a b ');

/** A Shopify or WooCommerce export: its header and rows of related cells, written with csv-stringify. */
export function presetCsv(columns: readonly string[]): fc.Arbitrary<{ text: Buffer; rows: number }> {
  return fc.array(fc.array(presetCell, { minLength: columns.length, maxLength: columns.length }), { maxLength: 12 }).map((rows) => ({
    text: Buffer.from(stringify([columns, ...rows]), 'utf8'),
    rows: rows.length,
  }));
}

/** JSON syntax and values, and what breaks them: tokens in any order. */
const jsonPiece: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 5, arbitrary: pieces(['[', ']', '{', '}', ',', ':', ',', ':']) },
  { weight: 4, arbitrary: pieces(['"sku"', '"title"', '"images_source"', '"overrides"', '"products"', '"__proto__"', '"a"', '"x y"', '""', '"é"', '"\\u00e9"', '"\\ud800"', '"\\u0000"']) },
  { weight: 3, arbitrary: pieces(['1', '-0.5e3', '1e400', '0', 'null', 'true', 'false', '[]', '{}']) },
  { weight: 2, arbitrary: pieces([' ', '\n', '\r\n', '\t']) },
  { weight: 1, arbitrary: pieces(['"', '\\', '"\\', '\uFEFF', '\0', 'NaN', '/*', '01', '-', '.5', "'a'"]) },
  { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8_PIECES) },
);

/** JSON-shaped bytes: JSON tokens in any order. */
export function jsonShaped(maxPieces = 60): fc.Arbitrary<Buffer> {
  return fc.array(jsonPiece, { maxLength: maxPieces }).map((parts) => Buffer.concat(parts));
}

/**
 * Text for a value: any Unicode (lone surrogates included: written as UTF-8 they become U+FFFD, as any writer does),
 * with what CSV must quote (quotes, delimiters, CR/LF), what spreadsheets read as formulas (leading = + - @), spaces
 * the mapping trims, empty strings, and now and then a long value.
 */
export function anyText(options: { replacementChar?: boolean } = {}): fc.Arbitrary<string> {
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '"', ',', ';', '\t', '|', '\r', '\n', '=', '+', '-', '@', 'é', '😀', '\0', '\uFEFF', '\u00a0', '\u2028'), maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '""', '=SUM(A1:A2)', '+1', '-1', '@cmd', '\r\n', 'a\rb', ' x ') },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', '"', 'é,', '\n'), fc.integer({ min: 100, max: 20_000 })).map(([unit, times]) => unit.repeat(times)) },
  );
  // As UTF-8 bytes hold it: a lone surrogate is written as U+FFFD.
  const written = text.map((value) => Buffer.from(value, 'utf8').toString('utf8'));
  return options.replacementChar === false ? written.map((value) => value.replaceAll('\uFFFD', '?')) : written;
}

/** A catalog record: a value (often empty or blank) for each column of the default mapping. */
export function catalogRecord(options: { replacementChar?: boolean; skuRequired?: boolean } = {}): fc.Arbitrary<Record<string, string>> {
  const value = anyText(options);
  const shape: Record<string, fc.Arbitrary<string>> = {};
  for (const column of CATALOG_COLUMNS) shape[column] = fc.oneof(fc.constant(''), value);
  if (options.skuRequired === true) shape.sku = fc.string({ unit: fc.constantFrom('a', 'B', '7', '-', '_', '.'), minLength: 1, maxLength: 8 });
  return fc.record(shape);
}

/** How a CSV catalog is written: the options of csv-stringify that change its bytes. */
export interface CsvStyle {
  delimiter: ',' | ';' | '\t' | '|';
  bom: boolean;
  crlf: boolean;
  quoteAll: boolean;
}

export const csvStyle: fc.Arbitrary<CsvStyle> = fc.record({
  delimiter: fc.constantFrom(',' as const, ';' as const, '\t' as const, '|' as const),
  bom: fc.boolean(),
  crlf: fc.boolean(),
  quoteAll: fc.boolean(),
});

/** A catalog written as text, with where each row's bytes start and end and the line each row starts on. */
export interface WrittenCatalog {
  text: Buffer;
  /** The records, in order (the header excluded). */
  records: ReadonlyArray<Record<string, string>>;
  /** Byte offset of each row's end, its line break included (JSON: just after its closing brace). */
  ends: number[];
  /** Line (1-based) each row starts on (JSON: unused). */
  lines: number[];
  /** Byte offset where the rows start (after the header, BOM or opening bracket). */
  bodyStart: number;
  /** The line after the last row: where a reader names the place after everything. */
  endLine: number;
}

/** Line breaks as editors count them: CRLF, CR and LF once each. */
export function physicalBreaks(bytes: Buffer, start = 0, end = bytes.length): number {
  let breaks = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte === 0x0a) breaks++;
    else if (byte === 0x0d) {
      breaks++;
      if (bytes[i + 1] === 0x0a && i + 1 < end) i++;
    }
  }
  return breaks;
}

/** Records written with csv-stringify under the default mapping's header, each row stringified on its own to know where it is. */
export function writeCsv(records: ReadonlyArray<Record<string, string>>, style: CsvStyle): WrittenCatalog {
  // quote_record_delimiter: with a record delimiter named, csv-stringify would otherwise quote only values holding it,
  // and write a CR alone unquoted (a line break to any reader).
  const options = { delimiter: style.delimiter, quoted: style.quoteAll, record_delimiter: style.crlf ? ('windows' as const) : ('unix' as const), quote_record_delimiter: true };
  const parts = [Buffer.from(`${style.bom ? '\uFEFF' : ''}${stringify([[...CATALOG_COLUMNS]], options)}`, 'utf8')];
  const ends: number[] = [];
  const lines: number[] = [];
  let offset = parts[0]!.length;
  let line = 1 + physicalBreaks(parts[0]!);
  const bodyStart = offset;
  for (const record of records) {
    const row = Buffer.from(stringify([CATALOG_COLUMNS.map((column) => record[column] ?? '')], options), 'utf8');
    parts.push(row);
    lines.push(line);
    offset += row.length;
    ends.push(offset);
    line += physicalBreaks(row);
  }
  return { text: Buffer.concat(parts), records, ends, lines, bodyStart, endLine: line };
}

/** Records as NDJSON, one JSON.stringify line each (LF or CRLF). */
export function writeNdjson(records: ReadonlyArray<Record<string, string>>, crlf: boolean): WrittenCatalog {
  const parts: Buffer[] = [];
  const ends: number[] = [];
  const lines: number[] = [];
  let offset = 0;
  records.forEach((record, i) => {
    const row = Buffer.from(`${JSON.stringify(record)}${crlf ? '\r\n' : '\n'}`, 'utf8');
    parts.push(row);
    lines.push(i + 1);
    offset += row.length;
    ends.push(offset);
  });
  return { text: Buffer.concat(parts), records, ends, lines, bodyStart: 0, endLine: records.length + 1 };
}

/** Records as a JSON array (one record a line, or minified). `ends` are the offsets after each closing brace. */
export function writeJson(records: ReadonlyArray<Record<string, string>>, pretty: boolean): WrittenCatalog {
  const open = Buffer.from(pretty ? '[\n  ' : '[', 'utf8');
  const parts = [open];
  const ends: number[] = [];
  let offset = open.length;
  records.forEach((record, i) => {
    const row = Buffer.from(`${i > 0 ? (pretty ? ',\n  ' : ',') : ''}${JSON.stringify(record)}`, 'utf8');
    parts.push(row);
    offset += row.length;
    ends.push(offset);
  });
  parts.push(Buffer.from(pretty ? '\n]\n' : ']', 'utf8'));
  return { text: Buffer.concat(parts), records, ends, lines: [], bodyStart: open.length, endLine: 0 };
}

/** One edit of a byte string: what a damaged or cut file looks like. */
export type Damage =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'insert'; at: number; bytes: Buffer }
  | { kind: 'delete'; at: number; length: number };

export const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.oneof(csvPiece, jsonPiece) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
);

/** The bytes with every edit done in turn. */
export function applyDamages(bytes: Buffer, edits: readonly Damage[]): Buffer {
  let text = bytes;
  for (const edit of edits) text = applyDamage(text, edit);
  return text;
}

/** The bytes with the damage done (positions taken modulo the length). */
export function applyDamage(bytes: Buffer, edit: Damage): Buffer {
  const at = bytes.length === 0 ? 0 : edit.at % (bytes.length + (edit.kind === 'insert' ? 1 : 0));
  switch (edit.kind) {
    case 'truncate':
      return bytes.subarray(0, at);
    case 'flip': {
      if (bytes.length === 0) return bytes;
      const copy = Buffer.from(bytes);
      copy[at] = copy[at]! ^ edit.mask;
      return copy;
    }
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), edit.bytes, bytes.subarray(at)]);
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + edit.length)]);
  }
}

/** How content is stored as a .gz file: whole, in two members, twice compressed, cut, corrupted, or with trailing bytes. */
export type GzipForm =
  | { kind: 'whole' }
  | { kind: 'members'; split: number }
  | { kind: 'twice' }
  | { kind: 'cut'; at: number }
  | { kind: 'flip'; at: number; mask: number }
  | { kind: 'trailing'; bytes: Buffer };

export const gzipForm: fc.Arbitrary<GzipForm> = fc.oneof(
  fc.constant({ kind: 'whole' as const }),
  fc.record({ kind: fc.constant('members' as const), split: fc.nat() }),
  fc.constant({ kind: 'twice' as const }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('trailing' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }).map((b) => Buffer.from(b)) }),
);

export function gzipAs(content: Buffer, form: GzipForm): Buffer {
  switch (form.kind) {
    case 'whole':
      return gzipSync(content);
    case 'members': {
      const split = form.split % (content.length + 1);
      return Buffer.concat([gzipSync(content.subarray(0, split)), gzipSync(content.subarray(split))]);
    }
    case 'twice':
      return gzipSync(gzipSync(content));
    case 'cut': {
      const whole = gzipSync(content);
      return whole.subarray(0, form.at % whole.length);
    }
    case 'flip':
      return applyDamage(gzipSync(content), form);
    case 'trailing':
      return Buffer.concat([gzipSync(content), form.bytes]);
  }
}
