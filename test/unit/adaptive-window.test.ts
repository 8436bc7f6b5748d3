import { describe, expect, it } from 'vitest';
import { AdaptiveWindow } from '../../src/publish/adaptive-window.js';

/** Feed a sequence of answers ('s' success, 't' 429, 'f' other failure) and return the limit after each. */
function run(max: number, events: string): number[] {
  const w = new AdaptiveWindow(max);
  return [...events].map((e) => {
    if (e === 's') w.onSuccess();
    else if (e === 't') w.onThrottle();
    else w.onFailure();
    return w.limit;
  });
}

describe('AdaptiveWindow', () => {
  it('starts with one request in flight', () => {
    expect(new AdaptiveWindow(16).limit).toBe(1);
  });

  const cases: [string, number, string, number[]][] = [
    ['slow start adds one per success', 16, 'sssss', [2, 3, 4, 5, 6]],
    ['slow start stops at max', 4, 'ssssss', [2, 3, 4, 4, 4, 4]],
    ['max 1 never grows', 1, 'sss', [1, 1, 1]],
    // 8 -> halve to 4 -> additive: +1 after 4 successes, +1 after 5 more
    ['429 halves, then grows additively', 16, 'sssssss' + 't' + 'sss' + 's' + 'ssss' + 's', [2, 3, 4, 5, 6, 7, 8, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6]],
    ['429 at 1 stays at 1, then one success adds one', 16, 'tts', [1, 1, 2]],
    ['other failure keeps the size and ends slow start', 16, 'sss' + 'f' + 'sss' + 's', [2, 3, 4, 4, 4, 4, 4, 5]],
    ['additive growth never passes max', 3, 'ss' + 'f' + 'sssssssss', [2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]],
  ];
  it.each(cases)('%s', (_name, max, events, limits) => {
    expect(run(max, events)).toEqual(limits);
  });

  it('a whole window of 429s halves it once, the next window halves it again', () => {
    const w = new AdaptiveWindow(16);
    for (let i = 0; i < 15; i++) w.onSuccess();
    expect(w.limit).toBe(16);
    for (let i = 0; i < 16; i++) w.onThrottle(); // all 16 in flight come back 429
    expect(w.limit).toBe(8);
    w.onThrottle(); // sent under the new window of 8
    expect(w.limit).toBe(4);
  });

  it('successes of the old window use up its stale answers', () => {
    const w = new AdaptiveWindow(16);
    for (let i = 0; i < 7; i++) w.onSuccess();
    expect(w.limit).toBe(8);
    w.onThrottle(); // -> 4; 7 answers of the old window still due
    for (let i = 0; i < 7; i++) w.onSuccess();
    expect(w.limit).toBe(5);
    w.onThrottle(); // a fresh 429: halves again
    expect(w.limit).toBe(2);
  });

  it('recovers from 1 to max under steady success', () => {
    const w = new AdaptiveWindow(16);
    w.onThrottle();
    let successes = 0;
    while (w.limit < 16) {
      w.onSuccess();
      successes++;
    }
    // additive: 1 + 2 + ... + 15
    expect(successes).toBe(120);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects max %s', (max) => {
    expect(() => new AdaptiveWindow(max)).toThrow(RangeError);
  });
});
