import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/publish/retry-after.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('parseRetryAfter', () => {
  const cases: [string, string | undefined, number | undefined][] = [
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['blank', '   ', undefined],
    ['zero seconds', '0', 0],
    ['two seconds', '2', 2000],
    ['padded seconds', ' 5 ', 5000],
    ['large seconds', '120', 120_000],
    ['absurd seconds stay finite', '99999999999999999999', Number.MAX_SAFE_INTEGER],
    ['fraction is garbage', '1.5', undefined],
    ['negative is garbage', '-3', undefined],
    ['words are garbage', 'soon', undefined],
    ['IMF-fixdate in the future', 'Sun, 01 Jun 2025 12:00:30 GMT', 30_000],
    ['IMF-fixdate in the past is 0', 'Sun, 01 Jun 2025 11:59:00 GMT', 0],
    ['IMF-fixdate now is 0', 'Sun, 01 Jun 2025 12:00:00 GMT', 0],
    ['obsolete RFC 850 date', 'Sunday, 01-Jun-25 12:01:00 GMT', 60_000],
    ['asctime-style date with zone', 'Sun Jun  1 12:00:10 2025 GMT', 10_000],
    ['nonsense date', 'Mon, 99 Foo 2025 12:00:00 GMT', undefined],
  ];
  it.each(cases)('%s: %j -> %j', (_name, input, expected) => {
    expect(parseRetryAfter(input, NOW)).toBe(expected);
  });
});
