import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { csvRecords } from '../../../src/catalog/formats/csv.js';
import { isRecordError } from '../../../src/catalog/read-records.js';
import { SourceError } from '../../../src/errors.js';
import { readStopOf } from '../../../src/catalog/sources/read-failure.js';
import { brief, bytes, collect, collectUntilError, stopped } from '../../helpers/sources-collect.js';

function read(text: string | Buffer, delimiter = ',', chunkSize?: number) {
  return collect(csvRecords(bytes(text, chunkSize), { source: 'c.csv', delimiter })).then(brief);
}

/** The items read, then the SourceError that stopped the reading (its message), for input that cannot be read to its end. */
function readStopped(text: string | Buffer, chunkSize?: number): Promise<{ items: ReturnType<typeof brief>; error: string | undefined }> {
  return stopped(csvRecords(bytes(text, chunkSize), { source: 'c.csv', delimiter: ',' }));
}

describe('csv: values and quoting', () => {
  it('keys records by the header and keeps every value a string', async () => {
    expect(await read('sku,qty,price,code\nA,007,1e3,TRUE\n')).toEqual([[2, { sku: 'A', qty: '007', price: '1e3', code: 'TRUE' }]]);
  });

  it('reads quoted values holding delimiters, doubled quotes and line breaks', async () => {
    const text = 'a,b\n"x, y","say ""hi"""\n"line 1\nline 2",z\n';
    expect(await read(text)).toEqual([
      [2, { a: 'x, y', b: 'say "hi"' }],
      [3, { a: 'line 1\nline 2', b: 'z' }],
    ]);
  });

  it('strips the byte order mark from the first column name', async () => {
    expect(await read('\uFEFFsku,title\nA,T\n')).toEqual([[2, { sku: 'A', title: 'T' }]]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('reads %s line ends, locating each record at its physical line', async (_name, eol) => {
    const text = ['a,b', '1,2', `"multi${eol}line",3`, '4,5', ''].join(eol);
    expect(await read(text)).toEqual([
      [2, { a: '1', b: '2' }],
      [3, { a: `multi${eol}line`, b: '3' }],
      [5, { a: '4', b: '5' }],
    ]);
  });

  it('ends a record at every CRLF, LF or bare CR, whichever the first line has; a CR inside quotes stays data', async () => {
    const text = 'a,b\r\n1,2\r3,4\n"5\r6",7\r\n8,9\r';
    for (const chunkSize of [undefined, 1, 2]) {
      expect(await read(text, ',', chunkSize)).toEqual([
        [2, { a: '1', b: '2' }],
        [3, { a: '3', b: '4' }],
        [4, { a: '5\r6', b: '7' }],
        [6, { a: '8', b: '9' }],
      ]);
    }
    // One column: a bare CR is no part of a value (it published "A-2\rA-3" as one SKU).
    expect(await read('sku\r\nA-1\r\nA-2\rA-3\r\n')).toEqual([
      [2, { sku: 'A-1' }],
      [3, { sku: 'A-2' }],
      [4, { sku: 'A-3' }],
    ]);
  });

  it('keeps line numbers exact after CRLF inside quoted values (csv-parse counts those twice)', async () => {
    const text = 'a,b\r\n"1\r\n2\r\n3",x\r\nq,"4\r\n5"\r\nlast,y\r\n';
    expect(await read(text)).toEqual([
      [2, { a: '1\r\n2\r\n3', b: 'x' }],
      [5, { a: 'q', b: '4\r\n5' }],
      [7, { a: 'last', b: 'y' }],
    ]);
  });

  it('reads the same whatever the chunk boundaries', async () => {
    const text = '\uFEFFa;b\r\n"x;\r\n""y""";é😎\r\n3;4';
    expect(await read(text, ';', 1)).toEqual(await read(text, ';'));
    expect(await read(text, ';', 1)).toEqual([
      [2, { a: 'x;\r\n"y"', b: 'é😎' }],
      [4, { a: '3', b: '4' }],
    ]);
  });

  it('reads with the delimiter it is given', async () => {
    expect(await read('a\tb|c\n1\t2|3\n', '\t')).toEqual([[2, { a: '1', 'b|c': '2|3' }]]);
  });

  it('skips blank lines and rows of empty cells, counting their lines', async () => {
    expect(await read('a,b\n\n1,2\n,\n\n3,4\n\n')).toEqual([
      [3, { a: '1', b: '2' }],
      [6, { a: '3', b: '4' }],
    ]);
  });

  it('reads an empty line of a one-column file as an empty value', async () => {
    expect(await read('sku\nA\n\nB\n')).toEqual([
      [2, { sku: 'A' }],
      [3, { sku: '' }],
      [4, { sku: 'B' }],
    ]);
  });

  it('gives a header without rows no records and no error', async () => {
    expect(await read('sku,title')).toEqual([]);
  });
});

describe('csv: bad input', () => {
  it('reports an unclosed quote at the line where its record starts, after the records before it, then stops: the rest is not read', async () => {
    const text = 'sku,title\nA,ok\nB,"never closed\nC,more\nD,end\n';
    for (const chunkSize of [undefined, 3]) {
      expect(await readStopped(text, chunkSize)).toEqual({
        items: [
          [2, { sku: 'A', title: 'ok' }],
          [3, 'error: a quoted value (column "title") opens in this row and is never closed: the file ends inside it, so nothing after it could be read'],
        ],
        error: 'c.csv:3: not read to its end: a quoted value (column "title") opens on this line and is never closed, so the rest of the file is taken as part of it',
      });
    }
  });

  it('reports a row with more fields than the header and goes on', async () => {
    expect(await read('a,b\n1,2\n1,2,3\n4,5\n')).toEqual([
      [2, { a: '1', b: '2' }],
      [3, 'error: the row has 3 fields but the header has 2: a value holding the delimiter must be quoted'],
      [4, { a: '4', b: '5' }],
    ]);
  });

  it('reports a row with fewer fields than the header and goes on', async () => {
    expect(await read('a,b,c\n1,2\n4,5,6\n')).toEqual([
      [2, 'error: the row has 2 fields but the header has 3'],
      [3, { a: '4', b: '5', c: '6' }],
    ]);
  });

  it('reports a stray quote once per record, at its line, and goes on', async () => {
    const text = 'a,b\n1,This "quote" is bare\n2,"closed" early "again"\n3,fine\n';
    expect(await read(text)).toEqual([
      [2, 'error: a quote inside the unquoted value (column "b"): quote the whole value and double the quote ("")'],
      [3, 'error: a quote inside the quoted value (column "b") must be doubled ("")'],
      [4, { a: '3', b: 'fine' }],
    ]);
  });

  it('reads a quote inside an unquoted TSV cell as a character of the value, read fast or by csv-parse, in any chunking', async () => {
    // TSV exports (Google Merchant Center, Amazon flat files) write `12" pizza pan` as it is; the row after a bad field
    // count is read by csv-parse, so both readers meet the quotes.
    const text = 'sku\ttitle\nA-1\t12" pizza pan\nA-2\tx""y"\nA-3\ttoo\tmany\nA-4\t5" plate, 3"\n"A-5"\t"tab\there"\n';
    for (const chunkSize of [undefined, 1, 3]) {
      for (const fastScan of [true, false]) {
        expect(brief(await collect(csvRecords(bytes(text, chunkSize), { source: 'c.tsv', delimiter: '\t', fastScan })))).toEqual([
          [2, { sku: 'A-1', title: '12" pizza pan' }],
          [3, { sku: 'A-2', title: 'x""y"' }],
          [4, 'error: the row has 3 fields but the header has 2: a value holding the delimiter must be quoted'],
          [5, { sku: 'A-4', title: '5" plate, 3"' }],
          [6, { sku: 'A-5', title: 'tab\there' }],
        ]);
      }
    }
  });

  it('keeps a TSV cell that starts with a quote a quoted value, and CSV strict about a quote inside an unquoted value', async () => {
    // A row with an error stays refused, once, whatever quotes follow in it.
    expect(await read('a\tb\n1\t"closed" early\n2\tx"y\n3\t"q"z"w\n', '\t')).toEqual([
      [2, 'error: a quote inside the quoted value (column "b") must be doubled ("")'],
      [3, { a: '2', b: 'x"y' }],
      [4, 'error: a quote inside the quoted value (column "b") must be doubled ("")'],
    ]);
    expect(await read('a;b\n1;x"y\n', ';')).toEqual([[2, 'error: a quote inside the unquoted value (column "b"): quote the whole value and double the quote ("")']]);
  });

  it('reports a row whose quoted value a stray quote closes early once, at its line, and reads every row after it', async () => {
    // csv-parse stayed inside the quoted value: the rows up to the next quote were part of this broken record, never
    // reported, and with no quote after it the rest of the file went unread.
    expect(await readStopped('a,b\n1,ok\n2,"closed" early\n3,fine\n')).toEqual({
      items: [
        [2, { a: '1', b: 'ok' }],
        [3, 'error: a quote inside the quoted value (column "b") must be doubled ("")'],
        [4, { a: '3', b: 'fine' }],
      ],
      error: undefined,
    });
    expect(await readStopped('sku,title\n"abc"x,1\nnext,2\n"q",3\nlast,4\n')).toEqual({
      items: [
        [2, 'error: a quote inside the quoted value (column "sku") must be doubled ("")'],
        [3, { sku: 'next', title: '2' }],
        [4, { sku: 'q', title: '3' }],
        [5, { sku: 'last', title: '4' }],
      ],
      error: undefined,
    });
  });

  it('reports invalid UTF-8 at the row that holds it and reads the rows around it', async () => {
    const text = Buffer.concat([Buffer.from('sku,title\nA,café\nB,caf'), Buffer.from([0xe9]), Buffer.from('\nC,ok\n')]);
    expect(await read(text, ',', 7)).toEqual([
      [2, { sku: 'A', title: 'café' }],
      [3, 'error: the row is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [4, { sku: 'C', title: 'ok' }],
    ]);
  });

  // A U+FFFD written as UTF-8 is a value; only rows whose own bytes are not UTF-8 are refused, at any chunk size
  // (a bad sequence or a U+FFFD cut between chunks), read by the fast scanner or csv-parse, CSV or TSV.
  it.each([
    ['csv, fast scanner', ',', true],
    ['csv, csv-parse', ',', false],
    ['tsv', '\t', true],
  ])('refuses only the rows holding bytes that are not UTF-8, never a genuine U+FFFD beside them (%s)', async (_name, delimiter, fastScan) => {
    const rows = ['sku\tn', 'Z0\t\uFFFD', 'Z1\tcaf\uFFFD', 'Z2\t\uFFFDx\uFFFD', 'Z3\tx', 'Z4\t"q\uFFFD"', 'Z5\t\uFFFD'];
    const text = Buffer.concat(
      rows.map((row, index) => {
        const line = Buffer.from(`${row.replaceAll('\t', delimiter)}\n`);
        // Rows 3 and 4 hold bytes that are not UTF-8 in place of their first U+FFFD (a Latin-1 é, a cut 3-byte sequence).
        const bad = index === 2 ? Buffer.from([0xe9]) : index === 3 ? Buffer.from([0xe2, 0x82]) : undefined;
        if (bad === undefined) return line;
        const at = line.indexOf(Buffer.from('\uFFFD'));
        return Buffer.concat([line.subarray(0, at), bad, line.subarray(at + 3)]);
      }),
    );
    const expected = [
      [2, { sku: 'Z0', n: '\uFFFD' }],
      [3, 'error: the row is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [4, 'error: the row is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      [5, { sku: 'Z3', n: 'x' }],
      [6, { sku: 'Z4', n: 'q\uFFFD' }],
      [7, { sku: 'Z5', n: '\uFFFD' }],
    ];
    for (let chunkSize = 1; chunkSize <= text.length; chunkSize++) {
      const items = await collect(csvRecords(bytes(text, chunkSize), { source: 'c.csv', delimiter, fastScan })).then(brief);
      expect({ chunkSize, items }).toEqual({ chunkSize, items: expected });
    }
  });

  it('refuses a last row that ends inside a character, and not the row before it', async () => {
    const text = Buffer.concat([Buffer.from('sku,n\nA,\uFFFD\nB,x'), Buffer.from([0xef, 0xbf])]);
    for (let chunkSize = 1; chunkSize <= text.length; chunkSize++) {
      expect(await read(text, ',', chunkSize)).toEqual([
        [2, { sku: 'A', n: '\uFFFD' }],
        [3, 'error: the row is not valid UTF-8 text (save the file as UTF-8; is it Latin-1 or Windows-1252?)'],
      ]);
    }
  });

  it('refuses a row that repeats the header (two exports joined, the second with its BOM), read fast or by csv-parse, in any chunking', async () => {
    const again = 'error: the row repeats the header row (each cell is its column\'s name): is a second export joined to this one? It is not a product';
    const text = 'sku,title\nA,Alpha\nsku,title\n\uFEFFsku, title \n"sku","title"\nB,sku\nsku\n';
    const expected = [[2, { sku: 'A', title: 'Alpha' }], [3, again], [4, again], [5, again], [6, { sku: 'B', title: 'sku' }], [7, 'error: the row has 1 fields but the header has 2']];
    for (const fastScan of [true, false]) {
      for (const chunkSize of [1, 7, text.length]) {
        const items = await collect(csvRecords(bytes(text, chunkSize), { source: 'c.csv', delimiter: ',', fastScan })).then(brief);
        expect({ fastScan, chunkSize, items }).toEqual({ fastScan, chunkSize, items: expected });
      }
    }
  });

  it('keeps a genuine U+FFFD in a valid file', async () => {
    expect(await read('a\nx \uFFFD y\n')).toEqual([[2, { a: 'x \uFFFD y' }]]);
  });

  it('stops at a header with duplicate column names, naming the columns: a header is not a row, so no item', async () => {
    expect(await readStopped('sku,title,,sku,title\n1,2,3,4,5\n')).toEqual({
      items: [],
      error: 'c.csv:1: the header row columns 1, 4 are all named "sku"; columns 2, 5 are all named "title"',
    });
  });

  it('stops at a header that names no column at all', async () => {
    expect(await readStopped(',,\nA,,\n')).toEqual({ items: [], error: 'c.csv:1: the header row names no column; the first line should name the columns' });
  });

  it('stops at an empty first line: a missing header', async () => {
    expect(await readStopped('\nsku\nA\n')).toEqual({ items: [], error: 'c.csv:1: the header row is empty; the first line should name the columns' });
  });

  it('stops at an empty source, at line 1, with no item (an empty file holds no row)', async () => {
    expect(await readStopped('')).toEqual({ items: [], error: 'c.csv:1: the file is empty; its first line should name the columns' });
  });

  it.each([
    [
      'a quoted one, as a quote left open',
      'B,"',
      'error: a quoted value (column "title") opens in this row and is not closed within 1 MiB; reading stopped here',
      'c.csv:3: not read to its end: a quoted value (column "title") opens on this line and is not closed within 1 MiB: is its closing quote missing?',
      'unclosed_quote',
    ],
    [
      // It was blamed on "an unclosed quote".
      'an unquoted one, as an over-long row',
      'B,',
      'error: the row is larger than 1 MiB without a quote open (the value (column "title") runs on); reading stopped here',
      'c.csv:3: not read to its end: the row on this line is larger than 1 MiB without a quote open: a value (column "title") runs on for over 1 MiB (a binary or damaged file, or a missing line break?)',
      'row_too_large',
    ],
  ])('reports a field over 1 MiB, %s, without holding the rest, after the rows before it', async (_name, start, row, message, reason) => {
    let sent = 0;
    const total = 64 * 1024 * 1024;
    const huge = new Readable({
      read() {
        if (sent === 0) this.push(`sku,title\nA,small\n${start}`);
        else if (sent >= total) this.push(null);
        else this.push(Buffer.alloc(64 * 1024, 0x78));
        sent += 64 * 1024;
      },
    });
    const { items, error } = await collectUntilError(csvRecords(huge, { source: 'c.csv', delimiter: ',' }));
    expect(brief(items)).toEqual([
      [2, { sku: 'A', title: 'small' }],
      [3, row],
    ]);
    expect(error).toBeInstanceOf(SourceError);
    expect(error?.message).toBe(message);
    // The rows not read start where the row that stopped the reading starts.
    expect(readStopOf(error)).toEqual({ reason, offset: 'sku,title\nA,small\n'.length });
    // Reading stopped at the error rather than at the end of the 64 MiB stream.
    expect(sent).toBeLessThan(8 * 1024 * 1024);
  });

  it('stops pulling input while the consumer does not ask for records (bounded buffering)', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        const chunk = produced === 0 ? 'sku,title\n' : 'A,some title\n'.repeat(1000);
        produced += chunk.length;
        this.push(chunk);
      },
    });
    const records = csvRecords(endless, { source: 'c.csv', delimiter: ',' })[Symbol.asyncIterator]();
    expect((await records.next()).done).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const afterPause = produced;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(produced).toBe(afterPause);
    expect(produced).toBeLessThan(2 * 1024 * 1024);
    await records.return?.(undefined);
    expect(endless.destroyed).toBe(true);
  });

  it('yields records as they are parsed, before the input ends', async () => {
    const input = new Readable({ read() {} });
    const records = csvRecords(input, { source: 'c.csv', delimiter: ',' })[Symbol.asyncIterator]();
    input.push('a\n1\n2\n');
    const first = await records.next();
    expect(first.done).toBe(false);
    expect(isRecordError(first.value as never)).toBe(false);
    input.push(null);
    await records.return?.(undefined);
  });
});

describe('csv: columns with no name (a spreadsheet ends its lines with empty columns)', () => {
  it('reads a header ending with unnamed columns: their empty cells give no field', async () => {
    for (const chunkSize of [undefined, 1]) {
      expect(await read('sku,title,price,,\nA-1,Thing,10,,\nA-2,Other,11, ,\n', ',', chunkSize)).toEqual([
        [2, { sku: 'A-1', title: 'Thing', price: '10' }],
        [3, { sku: 'A-2', title: 'Other', price: '11' }],
      ]);
    }
  });

  it('refuses a row with a value under an unnamed column, trailing or not, naming the column number: never dropped or merged', async () => {
    expect(await read('sku,,title,,\nA-1,,T,,\nA-2,x,T,,\nA-3,,T,,y\nA-4,x,T,y,\n')).toEqual([
      [2, { sku: 'A-1', title: 'T' }],
      [3, 'error: the value in column 2 sits under a column with no name in the header row: name the column in the header, or empty the cell'],
      [4, 'error: the value in column 5 sits under a column with no name in the header row: name the column in the header, or empty the cell'],
      [5, 'error: the values in columns 2, 4 sit under columns with no name in the header row: name the columns in the header, or empty the cells'],
    ]);
  });

  it('tells the header without its unnamed columns, and names an unnamed column by its number in a row error', async () => {
    let told: readonly string[] = [];
    const items = await collect(csvRecords(bytes('sku,,title\nA,"x"y,T\n'), { source: 'c.csv', delimiter: ',', onHeader: (columns) => (told = columns) })).then(brief);
    expect(told).toEqual(['sku', 'title']);
    expect(items).toEqual([[2, 'error: a quote inside the quoted value (column 2) must be doubled ("")']]);
  });
});
