/**
 * Defects the fuzzing of the readers (test/stress/fuzz-readers.test.ts) found, each with the smallest input that
 * showed it: a hang, a wrong location, a row reported cut off that was whole, a cause hidden behind another.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { csvRecords } from '../../../src/catalog/formats/csv.js';
import { jsonRecords } from '../../../src/catalog/formats/json.js';
import { openCatalog } from '../../../src/catalog/open-catalog.js';
import { SourceError } from '../../../src/errors.js';
import { seededRandom } from '../../../src/sandbox/random.js';
import { bytes, stopped, type brief } from '../../helpers/sources-collect.js';
import { tempDir } from '../../helpers/tmp.js';

function csv(text: string | Buffer, delimiter = ',', chunkSize?: number): Promise<{ items: ReturnType<typeof brief>; error: string | undefined }> {
  return stopped(csvRecords(bytes(text, chunkSize), { source: 'c.csv', delimiter }));
}

/** The bytes of a gzip file that stops after `text`, as a file cut while it was written reads. */
function cutAfter(text: string): Readable {
  return Readable.from(
    (function* () {
      yield Buffer.from(text);
      throw Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
    })(),
    { objectMode: false },
  );
}

const CUT = 'the compressed data ends early (unexpected end of file): the file is cut short';

/** The lines of the items, each with the kind of item. */
function lines(items: ReturnType<typeof brief>): Array<[number | undefined, string]> {
  return items.map(([line, value]) => [line, typeof value === 'string' ? 'error' : 'record']);
}

describe('JSON: a record nested deeper than the call stack, in a file that is not all UTF-8', () => {
  it('is read (or reported) without a RangeError, and reading goes on: it used to hang the reader', async () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const text = Buffer.concat([Buffer.from(`[{"sku":"A","deep":${deep},"bad":"`), Buffer.from([0xff]), Buffer.from('"},{"sku":"B"}]')]);
    const read = await stopped(jsonRecords(bytes(text), { source: 'c.json' }));
    expect(read.error).toBeUndefined();
    // Refused for its depth (MAX_JSON_DEPTH) before its bytes are looked at.
    expect(read.items).toEqual([
      [1, 'error: record 1 nests objects and arrays deeper than 64 levels'],
      [2, { sku: 'B' }],
    ]);
  });

  it('a record holding bytes that are not UTF-8 deep inside is refused', async () => {
    const deep = `${'['.repeat(50)}"caf\xe9"${']'.repeat(50)}`;
    const { items } = await stopped(jsonRecords(bytes(Buffer.from(`[{"sku":"A","a":${deep}},{"sku":"B"}]`, 'latin1')), { source: 'j.json' }));
    expect(items).toEqual([
      [1, expect.stringMatching(/^error: record 1 is not valid UTF-8/)],
      [2, { sku: 'B' }],
    ]);
  });
});

describe('CSV: a header repeating a name (or leaving names out) many times', () => {
  it('is refused at once, with a message of bounded length: the duplicate check was quadratic (hours for 500,000 columns)', async () => {
    const started = Date.now();
    const read = await csv(`sku${',a'.repeat(200_000)}\nA\n`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(read.items).toEqual([]);
    expect(read.error).toBe('c.csv:1: the header row columns 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, and 199990 more are all named "a"');
  });

  it('names the first ten problems and counts the others', async () => {
    const read = await csv(`sku${',__proto__'.repeat(12)}\nA\n`);
    const problems = Array.from({ length: 10 }, (_, i) => `column ${i + 2} is named __proto__, which cannot be a field`);
    expect(read.error).toBe(`c.csv:1: the header row ${problems.join('; ')}; and 2 more problems`);
  });

  it('reads a header of 200,000 columns with no name at once, and names at most ten of them in a row holding values there', async () => {
    const started = Date.now();
    const read = await csv(`sku${','.repeat(200_000)}\nA${','.repeat(200_000)}\nB${',x'.repeat(200_000)}\n`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(read.error).toBeUndefined();
    expect(read.items).toEqual([
      [2, { sku: 'A' }],
      [3, 'error: the values in columns 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, and 199990 more sit under columns with no name in the header row: name the columns in the header, or empty the cells'],
    ]);
  });
});

describe('CSV: a long run of blank lines', () => {
  it('is skipped at the cost of reading it: each blank line used to cost an error object (25 µs; minutes for millions)', async () => {
    const started = Date.now();
    const read = await csv(Buffer.concat([Buffer.from('sku,title\n'), Buffer.alloc(4 * 1024 * 1024, '\n'), Buffer.from('A,a\nB,b\n')]));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(read).toEqual({ items: [[4_194_306, { sku: 'A', title: 'a' }], [4_194_307, { sku: 'B', title: 'b' }]], error: undefined });
  });
});

describe('CSV: lines of a file whose first line ends with LF (or CR) and whose rows end with CRLF', () => {
  it('locates each row on its line: the count used to grow by one a row (2, 4, 6)', async () => {
    expect(lines((await csv('sku,title\nA,b\r\nB,c\r\nC,d\n')).items)).toEqual([
      [2, 'record'],
      [3, 'record'],
      [4, 'record'],
    ]);
    expect(lines((await csv('sku,title\rA,b\r\nB,c\r\nC,d\r')).items)).toEqual([
      [2, 'record'],
      [3, 'record'],
      [4, 'record'],
    ]);
    // Every line end ends a line, whichever the first line has: lines 2 and 3 are blank.
    expect(lines((await csv('sku,title,m\n\r\n\r\nB,c,d\n')).items)).toEqual([[4, 'record']]);
  });

  it('counts the lines of a row dropped for an error, whose end csv-parse reports nowhere (it used to say 4 of 3 lines)', async () => {
    // Found with a tab delimiter; in TSV a quote inside a value is literal, so the stray quotes are a CSV's here.
    expect(lines((await csv('a\n,"a\r\nb"', ';')).items)).toEqual([
      [2, 'error'],
      [3, 'error'],
    ]);
    expect(lines((await csv('a\r,"a\r\nb"', ';')).items)).toEqual([
      [2, 'error'],
      [3, 'error'],
    ]);
    expect(lines((await csv('a\r,"a\r\nb"', '\t')).items)).toEqual([
      [2, 'record'],
      [3, 'record'],
    ]);
  });

  it('whatever the chunks', async () => {
    for (const chunkSize of [1, 2, 3, 5]) {
      expect(lines((await csv('sku,title\nA,b\r\nB,"c"\n"C",d\r\nD,e\n', ',', chunkSize)).items)).toEqual([
        [2, 'record'],
        [3, 'record'],
        [4, 'record'],
        [5, 'record'],
      ]);
    }
  });
});

describe('CSV: the line of a row with a quote problem', () => {
  it('does not take a CRLF off twice for a row with a quote problem at the end of the file (it said line 1, the header)', async () => {
    expect(await csv('sku,title,marketplace\n"a\r\nb"x')).toEqual({
      items: [[2, 'error: a quoted value (column "sku") opens in this row and runs on to line 3, where a quote inside it is not doubled: lines 2-3 are read as this one row (is a quote on line 2 left open?)']],
      error: undefined,
    });
  });

  it('counts a line break before a closing quote as read (it located the row on its second line)', async () => {
    expect(await csv('sku,title,marketplace\n"\r"a')).toEqual({
      items: [[2, 'error: a quoted value (column "sku") opens in this row and runs on to line 3, where a quote inside it is not doubled: lines 2-3 are read as this one row (is a quote on line 2 left open?)']],
      error: undefined,
    });
  });

  it('locates a row where it starts, and tells the line of the problem when the row runs over several', async () => {
    expect(await csv('sku;title;c\r\n"a\nb";x"y";z\r\nA;B;C\r\n', ';')).toEqual({
      items: [
        [2, 'error: a quote inside the unquoted value (column "title"): quote the whole value and double the quote (""), on line 3 (the row starts on line 2)'],
        [4, { sku: 'A', title: 'B', c: 'C' }],
      ],
      error: undefined,
    });
  });

  it('counts a line break the last value ends with at the end of the file (it located the row a line early)', async () => {
    expect(lines((await csv('\uFEFFsku|title|marketplace\r\n"\n\n', '|')).items)).toEqual([[2, 'error']]);
    // Followed by a closing quote, the break was counted.
    expect(lines((await csv('sku,title,marketplace\n"\r"')).items)).toEqual([[2, 'error']]);
  });
});

describe('CSV: input cut short (a gzip file cut while written)', () => {
  it('reads a last row that is whole, though csv-parse still held its closing quote (it was reported cut off)', async () => {
    expect(await stopped(csvRecords(cutAfter('sku,title\n"A","b"\n"C","d"\n'), { source: 'c.csv', delimiter: ',' }))).toEqual({
      items: [
        [2, { sku: 'A', title: 'b' }],
        [3, { sku: 'C', title: 'd' }],
      ],
      error: `c.csv:4: not read to its end: ${CUT}`,
    });
  });

  it('reports a row cut right after its opening quote as cut off, not as a quote left open (which hid the cause)', async () => {
    expect(await stopped(csvRecords(cutAfter('sku,title\n"A","b"\n"'), { source: 'c.csv', delimiter: ',' }))).toEqual({
      items: [
        [2, { sku: 'A', title: 'b' }],
        [3, `error: the row is cut off: reading stopped inside it (${CUT})`],
      ],
      error: `c.csv:3: not read to its end: ${CUT}`,
    });
  });

  it('reports a row once: one with an error is not reported again as cut off (there were two items at line 2)', async () => {
    const read = await stopped(csvRecords(cutAfter('sku,title\n"A"x,"b'), { source: 'c.csv', delimiter: ',' }));
    expect(lines(read.items)).toEqual([[2, 'error']]);
    expect(read.error).toBe(`c.csv:2: not read to its end: ${CUT}`);
  });

  it('reads a row cut between the CR and the LF of its CRLF as whole, quoted or not (a quoted one was reported twice)', async () => {
    for (const text of ['sku,title\r\nA,"b"\r', 'sku,title\r\nA,b\r']) {
      expect(await stopped(csvRecords(cutAfter(text), { source: 'c.csv', delimiter: ',' }))).toEqual({
        items: [[2, { sku: 'A', title: 'b' }]],
        error: `c.csv:3: not read to its end: ${CUT}`,
      });
    }
  });

  it('does not read a header cut short as the header (openCatalog blamed the mapping: "has no sku column")', async () => {
    const headers: string[][] = [];
    const read = await stopped(csvRecords(cutAfter('sk'), { source: 'c.csv', delimiter: ',', onHeader: (columns) => headers.push([...columns]) }));
    expect(read).toEqual({ items: [], error: `c.csv:1: not read to its end: ${CUT}` });
    expect(headers).toEqual([]);
    // A header whole before the cut (csv-parse still holding its line break) is read, and the cut is after it.
    const whole = await stopped(csvRecords(cutAfter('sku,title\n'), { source: 'c.csv', delimiter: ',', onHeader: (columns) => headers.push([...columns]) }));
    expect(whole).toEqual({ items: [], error: `c.csv:2: not read to its end: ${CUT}` });
    expect(headers).toEqual([['sku', 'title']]);
    // And so is one followed by the start of a row (it was taken for a header cut short).
    const started = await stopped(csvRecords(cutAfter('sku,title\na'), { source: 'c.csv', delimiter: ',' }));
    expect(started).toEqual({ items: [[2, `error: the row is cut off: reading stopped inside it (${CUT})`]], error: `c.csv:2: not read to its end: ${CUT}` });
    // The same through openCatalog, from a .csv.gz file whose stored (uncompressed) block is cut after "sk".
    const file = join(tempDir(), 'cut.csv.gz');
    const stored = gzipSync('sku,title\nA,b\n', { level: 0 });
    writeFileSync(file, stored.subarray(0, 10 + 5 + 2));
    let error: unknown;
    try {
      const catalog = await openCatalog(file);
      for await (const _draft of catalog.drafts);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toMatch(/cut\.csv\.gz:1: not read to its end: the compressed data ends early/);
  });
});

describe('CSV: every line of a file without a line break inside quotes is one row, at its line', () => {
  // Quote mistakes on a line ("ab"c, a"b, "a"b"c) make that row invalid; none may swallow the lines after it (a
  // quote closing a value early left csv-parse inside it, up to the next quote in the file).
  const TOKENS = ['a', 'bc', '"q"', '"a""b"', '"ab"c', 'a"b', '""', '', '"x,y"', 'ab""', '"ab" ', ' "ab"', '"a"b"c', 'x"'];
  it('1,000 generated files, every line end, in small chunks', async () => {
    const random = seededRandom(24);
    const pick = <T>(of: readonly T[]): T => of[Math.floor(random() * of.length)]!;
    for (let n = 0; n < 1000; n++) {
      const columns = 1 + Math.floor(random() * 3);
      const rows = 1 + Math.floor(random() * 6);
      const lines = [Array.from({ length: columns }, (_, i) => `h${i}`).join(',')];
      for (let r = 0; r < rows; r++) {
        let cells: string[];
        // A row of only empty values is skipped as a blank line.
        do cells = Array.from({ length: columns }, () => pick(TOKENS));
        while (cells.every((cell) => cell === '' || cell === '""'));
        lines.push(cells.join(','));
      }
      const end = pick(['\n', '\r\n', '\r']);
      const text = `${lines.join(end)}${random() < 0.7 ? end : ''}`;
      const { items, error } = await csv(text, ',', 1 + Math.floor(random() * 8));
      expect({ text, lines: items.map(([line]) => line), error }).toEqual({ text, lines: Array.from({ length: rows }, (_, i) => i + 2), error: undefined });
    }
  });
});
