import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/publish/rate-limiter.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('RateLimiter', () => {
  it('10/s: a burst of one, then one slot every 100 ms, reserved in order', () => {
    const c = clock();
    const limiter = new RateLimiter(10, c.now);
    expect([1, 2, 3, 4].map(() => limiter.delayMs())).toEqual([0, 100, 200, 300]);
  });

  it('100/s: a burst of ten, then 10 ms apart', () => {
    const c = clock();
    const limiter = new RateLimiter(100, c.now);
    const delays = Array.from({ length: 13 }, () => limiter.delayMs());
    expect(delays).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 20, 30]);
  });

  it('refills with time, up to the burst only', () => {
    const c = clock();
    const limiter = new RateLimiter(10, c.now);
    expect(limiter.delayMs()).toBe(0);
    c.advance(100);
    expect(limiter.delayMs()).toBe(0);
    c.advance(10_000); // idle: still only one token saved up
    expect(limiter.delayMs()).toBe(0);
    expect(limiter.delayMs()).toBe(100);
  });

  it('a debt is paid back by time', () => {
    const c = clock();
    const limiter = new RateLimiter(10, c.now);
    limiter.delayMs();
    expect(limiter.delayMs()).toBe(100);
    expect(limiter.delayMs()).toBe(200);
    c.advance(150);
    expect(limiter.delayMs()).toBe(150);
  });

  it('fractional rates: 0.5/s is one request every 2 s', () => {
    const c = clock();
    const limiter = new RateLimiter(0.5, c.now);
    expect([limiter.delayMs(), limiter.delayMs(), limiter.delayMs()]).toEqual([0, 2000, 4000]);
  });

  it('holds the long-run rate: 400/s over a simulated 10 s sends about 4000', () => {
    const c = clock();
    const limiter = new RateLimiter(400, c.now);
    let sent = 0;
    // a greedy sender that waits exactly as told
    for (;;) {
      const wait = limiter.delayMs();
      if (wait > 0) c.advance(wait);
      if (c.now() - 1_000_000 > 10_000) break;
      sent++;
    }
    expect(sent).toBeGreaterThanOrEqual(4000);
    expect(sent).toBeLessThanOrEqual(4000 + 40 + 1);
  });

  it('a clock that steps back does not break it', () => {
    const c = clock();
    const limiter = new RateLimiter(10, c.now);
    limiter.delayMs();
    c.advance(-5000);
    expect(limiter.delayMs()).toBe(100);
  });

  it.each([0, -1, Number.NaN, Infinity])('rejects rate %s', (rate) => {
    expect(() => new RateLimiter(rate)).toThrow(RangeError);
  });
});
