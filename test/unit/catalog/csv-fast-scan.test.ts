/**
 * The fast CSV scanner reads well-formed records itself and hands csv-parse the rest of the input at the first record
 * it is unsure of. Whatever the input and however it is cut into chunks, the reader must give exactly what csv-parse
 * alone gives: the same records at the same lines, the same errors, the same stop and where it is.
 */
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { csvRecords } from '../../../src/catalog/formats/csv.js';
import { CsvFastScanner, fastDelimiter } from '../../../src/catalog/formats/csv-fast.js';
import { readStopOf } from '../../../src/catalog/sources/read-failure.js';
import { brief, collectUntilError } from '../../helpers/sources-collect.js';
import { seededRandom } from '../../../src/sandbox/random.js';

/** The bytes in chunks of the given sizes (cycled), optionally failing after them as a cut download does. */
function chunked(buffer: Buffer, sizes: readonly number[], failAfter = false): Readable {
  return Readable.from(
    (function* () {
      let at = 0;
      for (let i = 0; at < buffer.length; i++) {
        const size = sizes[i % sizes.length]!;
        yield buffer.subarray(at, at + size);
        at += size;
      }
      if (failAfter) throw Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
    })(),
    { objectMode: false },
  );
}

async function readAll(buffer: Buffer, sizes: readonly number[], fastScan: boolean, delimiter = ',', failAfter = false) {
  const { items, error } = await collectUntilError(csvRecords(chunked(buffer, sizes, failAfter), { source: 'c.csv', delimiter, fastScan }));
  return { items: brief(items), error: error?.message, stop: readStopOf(error) };
}

/** Inputs made of the pieces CSV goes wrong on: quotes, delimiters, every line end, multi-byte and invalid bytes. */
const PIECES = ['a', 'bc', 'é', '€', ',', ',', '"', '""', '\n', '\n', '\r\n', '\r', ' ', '\t', '\uFEFF', '\xff'];

function input(random: () => number, delimiter: string): Buffer {
  const parts: Buffer[] = [];
  if (random() < 0.1) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  // Mostly a well-formed header and rows, then noise in some of them.
  const columns = 1 + Math.floor(random() * 3);
  parts.push(Buffer.from(`${Array.from({ length: columns }, (_, i) => `c${i}`).join(delimiter)}\n`));
  const rows = Math.floor(random() * 8);
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) {
      const kind = random();
      if (kind < 0.5) cells.push(`v${r}${c}`);
      else if (kind < 0.8) cells.push(`"q${'""'.repeat(Math.floor(random() * 2))}${delimiter}\n${c}"`);
      else {
        let noise = '';
        const n = Math.floor(random() * 5);
        for (let i = 0; i < n; i++) noise += PIECES[Math.floor(random() * PIECES.length)];
        cells.push(noise);
      }
    }
    const end = ['\n', '\r\n', '\r', ''][Math.floor(random() * (r === rows - 1 ? 4 : 3))]!;
    parts.push(Buffer.from(cells.join(delimiter) + end, random() < 0.05 ? 'latin1' : 'utf8'));
    if (random() < 0.1) parts.push(Buffer.from(['\n', '\r\n', '\r'][Math.floor(random() * 3)]!));
  }
  return Buffer.concat(parts);
}

describe('csv: the fast scanner reads as csv-parse does', () => {
  it.each([
    ['CSV', ',', 24],
    ['TSV (a quote inside an unquoted value is literal)', '\t', 25],
  ])('%s: gives the same records, errors and stop as csv-parse alone for 1,500 generated inputs, however they are cut', async (_name, delimiter, seed) => {
    const random = seededRandom(seed);
    for (let i = 0; i < 1500; i++) {
      const buffer = input(random, delimiter);
      const sizes = random() < 0.3 ? [buffer.length || 1] : [1 + Math.floor(random() * 7), 1 + Math.floor(random() * 13)];
      const failAfter = random() < 0.15;
      const expected = await readAll(buffer, [buffer.length || 1], false, delimiter, failAfter);
      const actual = await readAll(buffer, sizes, true, delimiter, failAfter);
      expect({ input: buffer.toString('latin1'), ...actual }).toEqual({ input: buffer.toString('latin1'), ...expected });
    }
  });

  it.each([
    ['a stray quote', 'a,b\n1,2\n3,x"y\n5,6\n'],
    ['an unclosed quote', 'a,b\n1,2\n"3,4\n5,6\n'],
    ['a character after a closing quote', 'a,b\n1,2\n"3"x,4\n5,6\n'],
    ['too many fields', 'a,b\n1,2\n3,4,5\n6,7\n'],
    ['too few fields, then blank lines', 'a,b\n1,2\n3\n\n\n6,7\n'],
    ['a UTF-16 BOM', '\uFEFFa,b\n1,2\n'],
    ['a tab-separated file with quotes', 'a\tb\n"1\t2"\t3\n4\t"5""6"\n'],
    ['a tab-separated file with quotes inside unquoted values, then a bad row', 'a\tb\n1\t12" pan\n2\t3\t4\n5\tx"y""\n"6"z\t7\n8\t9"\n'],
  ])('hands the rest to csv-parse at %s, and reads the same', async (_name, text) => {
    const buffer = _name === 'a UTF-16 BOM' ? Buffer.from(text, 'utf16le') : Buffer.from(text);
    const delimiter = text.includes('\t') ? '\t' : ',';
    for (const sizes of [[buffer.length], [1], [3, 5]]) {
      expect(await readAll(buffer, sizes, true, delimiter)).toEqual(await readAll(buffer, [buffer.length], false, delimiter));
    }
  });
});

describe('csv: the fast scanner', () => {
  function scanAll(text: string, chunk = Infinity, delimiter = ',') {
    const records: Array<[string[], number, string]> = [];
    const scanner = new CsvFastScanner(fastDelimiter(delimiter)!, (values, lines, ending) => records.push([values, lines, ending]), delimiter === '\t');
    const bytes = Buffer.from(text);
    let held = Buffer.alloc(0);
    let at = 0;
    for (let i = 0; i <= bytes.length; i += chunk) {
      const end = i + chunk >= bytes.length;
      const buf = Buffer.concat([held, bytes.subarray(i, i + chunk)]);
      const scan = scanner.scan(buf, at, end);
      if (scan.handOff) return { records, handOffAt: at + scan.next };
      held = buf.subarray(scan.next);
      at += scan.next;
      if (end) break;
    }
    return { records, handOffAt: undefined };
  }

  it('reads well-formed records itself, with csv-parse line counts (a break inside quotes counts per CR and per LF)', () => {
    const text = '\uFEFFa,b\r\n"x\r\ny",2\r\n\r\n3,"say ""hi"""\r4,5';
    for (const chunk of [Infinity, 1, 4]) {
      const scanned = scanAll(text, chunk);
      expect(scanned.handOffAt).toBeUndefined();
      expect(scanned.records).toEqual([
        [['a', 'b'], 1, 'delimited'],
        [['x\r\ny', '2'], 4, 'delimited'],
        [[''], 5, 'delimited'],
        [['3', 'say "hi"'], 6, 'delimited'],
        [['4', '5'], 7, 'unterminated'],
      ]);
    }
  });

  it('stops at the start of the first record it is unsure of', () => {
    expect(scanAll('a,b\n1,2\n3,x"y\n5,6\n').handOffAt).toBe(8);
    expect(scanAll('a,b\n1,2\n"3,4\n5,6\n').handOffAt).toBe(8);
  });

  it('reads a quote inside an unquoted TSV value itself, as a character of it; a bad closing quote is still handed off', () => {
    expect(scanAll('a\tb\n1\t12" pan\n', Infinity, '\t')).toEqual({ records: [[['a', 'b'], 1, 'delimited'], [['1', '12" pan'], 2, 'delimited']], handOffAt: undefined });
    expect(scanAll('a\tb\n1\t"12" pan"\n', Infinity, '\t').handOffAt).toBe(4);
  });

  it('takes only a one-byte delimiter csv-parse cannot read otherwise', () => {
    expect(fastDelimiter(',')).toBe(0x2c);
    expect(fastDelimiter('\t')).toBe(0x09);
    expect(fastDelimiter('||')).toBeUndefined();
    expect(fastDelimiter('"')).toBeUndefined();
    expect(fastDelimiter('é')).toBeUndefined();
  });
});
