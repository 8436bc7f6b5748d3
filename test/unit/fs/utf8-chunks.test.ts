import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Chunks } from '../../../src/fs/utf8-chunks.js';

/** Everything a Utf8Chunks holds, as the bytes a file would get. */
function bytesOf(chunks: Utf8Chunks, taken: Buffer[]): Buffer {
  return Buffer.concat([...taken, ...chunks.take(true)]);
}

/** The chunks of two files, and the key of an outcome written to both. */
function twoFiles(): { a: Utf8Chunks; b: Utf8Chunks; key: object } {
  return { a: new Utf8Chunks(), b: new Utf8Chunks(), key: {} };
}

describe('Utf8Chunks.addAround: a text given to two files is encoded once, the bytes copied', () => {
  it('a shared text after a half pair kept back joins it in that file, and stands alone in the other', () => {
    const { a, b, key } = twoFiles();
    a.addAround('', '\ude00 row', '\n', key);
    b.add('x \ud83d');
    b.addAround('', '\ude00 row', '\n', key);
    expect(bytesOf(a, []).equals(Buffer.from('\ude00 row\n', 'utf8'))).toBe(true);
    expect(bytesOf(b, []).toString('utf8')).toBe('x 😀 row\n');
  });

  it('a shared text ending in half a pair is completed by what each file writes next', () => {
    const { a, b, key } = twoFiles();
    a.addAround('', 'row \ud83d', '', key);
    a.add('\ude00 a');
    b.addAround('', 'row \ud83d', '', key);
    b.add(' b');
    expect(bytesOf(a, []).toString('utf8')).toBe('row 😀 a');
    expect(bytesOf(b, []).equals(Buffer.from('row \ud83d b', 'utf8'))).toBe(true);
  });

  it('bytes written over since (a flush that keeps its chunk) are not copied', () => {
    const { a, b, key } = twoFiles();
    a.addAround('', 'shared row', '\n', key);
    const taken = a.take(true);
    a.add('other text');
    b.addAround('', 'shared row', '\n', key);
    expect(bytesOf(a, taken).toString('utf8')).toBe('shared row\nother text');
    expect(bytesOf(b, []).toString('utf8')).toBe('shared row\n');
  });

  it('any sequence of plain and shared texts across two files gives each file the bytes of its texts encoded at once (between flushes of all)', () => {
    const piece = fc.constantFrom('a', 'row', 'é', '€', '😀', '\ud83d', '\ude00', '\ud800', '"', 'x'.repeat(30_000), '€'.repeat(12_000));
    const text = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
    const step = fc.record({ shared: fc.boolean(), file: fc.constantFrom(0, 1), before: fc.constantFrom('', ',\n', '\ude00'), text, after: fc.constantFrom('', '\n', '\ud83d'), flush: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const files = [new Utf8Chunks(), new Utf8Chunks()];
        const taken: Buffer[][] = [[], []];
        const expected = ['', ''];
        const done: Buffer[][] = [[], []];
        let key = {};
        for (const s of steps) {
          // A shared step is written to both files (same key and text, as the JSON and NDJSON reports are), others to one.
          if (s.shared) {
            key = {};
            for (const f of [0, 1]) {
              files[f]?.addAround(s.before, s.text, s.after, key);
              expected[f] += `${s.before}${s.text}${s.after}`;
            }
          } else {
            files[s.file]?.add(s.text);
            expected[s.file] += s.text;
          }
          if (s.flush) {
            // All that is pending (the end of a text: a half pair kept back is written as it is), or the full chunks.
            const all = s.text.length % 2 === 0;
            taken[s.file]?.push(...(files[s.file]?.take(all) ?? []));
            if (all) {
              done[s.file]?.push(Buffer.from(expected[s.file] ?? '', 'utf8'));
              expected[s.file] = '';
            }
          }
        }
        for (const f of [0, 1]) {
          const chunks = files[f];
          if (chunks === undefined) continue;
          expect(bytesOf(chunks, taken[f] ?? []).equals(Buffer.concat([...(done[f] ?? []), Buffer.from(expected[f] ?? '', 'utf8')]))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
