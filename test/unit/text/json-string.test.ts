import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonString } from '../../../src/json-string.js';

describe('jsonString: JSON.stringify of a string, with printable ASCII quoted without the native call', () => {
  it('gives the text JSON.stringify gives at every boundary of the plain ASCII it quotes as it is', () => {
    const edges = ['', 'SKU-0000001', 'a3f1c2d4e5f60718293a4b5c6d7e8f9012345678', ' ', '~', '\u007f', '\u001f', '\t', '\n', '\r', '\b', '\f', '\u0000'];
    const specials = ['"', '\\', '\\"', 'a"b', 'a\\b', 'é', '€', '😀', '\ud83d', '\ude00', 'x\ud800y', '\u2028', '\u202e', '\u0080', '\u00ff'];
    for (const text of [...edges, ...specials, ...specials.map((s) => `plain ${s} text`)]) expect(jsonString(text)).toBe(JSON.stringify(text));
  });

  it('gives the text JSON.stringify gives for any string (lone surrogates, controls, quotes)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', '"', '\\', '\u001f', '\u007f', '\ud83d', '\ude00', 'é') }), (a, b) => {
        expect(jsonString(a)).toBe(JSON.stringify(a));
        expect(jsonString(b)).toBe(JSON.stringify(b));
      }),
      { numRuns: 2000 },
    );
  });
});
