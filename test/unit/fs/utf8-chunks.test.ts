import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Chunks } from '../../../src/fs/utf8-chunks.js';

describe('Utf8Chunks: texts gathered a few rows at a time, then encoded', () => {
  it('a pair split between two texts is one character wherever the gathered text is cut for encoding', () => {
    for (let units = 1; units < 5_000; units += 7) {
      const chunks = new Utf8Chunks();
      chunks.add(`${'a'.repeat(units)}\ud83d`);
      chunks.add('\ude00 end');
      const text = Buffer.concat(chunks.take(true)).toString('utf8');
      expect(text.slice(-6)).toBe('😀 end');
      expect(text).not.toContain('\ufffd');
    }
  });

  it('any sequence of texts and flushes gives the bytes of the texts encoded at once between flushes of all', () => {
    const piece = fc.constantFrom('a', 'row\n', ',\n', 'é', '€', '😀', '\ud83d', '\ude00', '\ud800', 'x'.repeat(700), 'y'.repeat(30_000), '€'.repeat(12_000));
    const step = fc.record({ text: fc.array(piece, { maxLength: 4 }).map((parts) => parts.join('')), flush: fc.constantFrom('none', 'full', 'all') });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const chunks = new Utf8Chunks();
        const taken: Buffer[] = [];
        const expected: Buffer[] = [];
        let text = '';
        for (const s of steps) {
          chunks.add(s.text);
          text += s.text;
          // A text gathered, not yet encoded, is still waiting (a writer that found nothing waiting would drop it).
          if (s.text !== '') expect(chunks.empty).toBe(false);
          if (s.flush === 'none') continue;
          // All that is pending is written (a half pair kept back as it is, as the end of a text), or the full chunks.
          taken.push(...chunks.take(s.flush === 'all'));
          if (s.flush === 'all') {
            expected.push(Buffer.from(text, 'utf8'));
            text = '';
          }
        }
        taken.push(...chunks.take(true));
        expected.push(Buffer.from(text, 'utf8'));
        expect(Buffer.concat(taken).equals(Buffer.concat(expected))).toBe(true);
        expect(chunks.empty).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
