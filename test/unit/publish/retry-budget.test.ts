import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../../src/publish/retry-budget.js';

function drain(budget: RetryBudget): number {
  let n = 0;
  while (budget.tryAcquire()) n++;
  return n;
}

describe('RetryBudget', () => {
  it('defaults: 50 retries before any request, then one per ten first attempts', () => {
    const budget = new RetryBudget();
    expect(budget.allowance).toBe(50);
    expect(drain(budget)).toBe(50);
    expect(budget.exhausted).toBe(true);
    expect(budget.spent).toBe(50);
    for (let i = 0; i < 9; i++) budget.recordRequest();
    expect(budget.tryAcquire()).toBe(false);
    budget.recordRequest();
    expect(budget.exhausted).toBe(false);
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.tryAcquire()).toBe(false);
    expect(budget.spent).toBe(51);
    expect(budget.refused).toBe(3); // one while draining, two after
  });

  const cases: [string, { ratio?: number; minRetries?: number }, number, number][] = [
    // options, first attempts, retries allowed in total
    ['no retries at all', { ratio: 0, minRetries: 0 }, 1000, 0],
    ['only the floor', { ratio: 0, minRetries: 5 }, 1000, 5],
    ['only the ratio', { ratio: 0.5, minRetries: 0 }, 7, 3],
    ['defaults over 10k rows', {}, 10_000, 1050],
    ['ratio 1', { ratio: 1, minRetries: 2 }, 10, 12],
    ['a ratio that rounds badly in binary', { ratio: 0.29, minRetries: 0 }, 100, 29],
  ];
  it.each(cases)('%s: %j after %i rows allows %i retries', (_name, options, rows, allowed) => {
    const budget = new RetryBudget(options);
    for (let i = 0; i < rows; i++) budget.recordRequest();
    expect(drain(budget)).toBe(allowed);
    expect(budget.spent).toBe(allowed);
  });

  it('a service that is always down receives at most rows + budget requests', () => {
    const rows = 10_000;
    const maxAttempts = 5;
    const budget = new RetryBudget();
    let requests = 0;
    for (let row = 0; row < rows; row++) {
      budget.recordRequest();
      requests++;
      for (let attempt = 1; attempt < maxAttempts && budget.tryAcquire(); attempt++) requests++;
    }
    expect(requests).toBeLessThanOrEqual(rows + 50 + 0.1 * rows);
    expect(requests).toBeLessThan(rows * maxAttempts);
  });

  it('a restart cuts 400 requests in flight at once: one event, one retry spent, every row retried', () => {
    const budget = new RetryBudget();
    for (let i = 0; i < 1000; i++) budget.recordRequest();
    budget.recordAccepted();
    // Sent over the last round trip; the service goes away at 1,000 ms and the resets arrive over 5 ms.
    const retried = Array.from({ length: 400 }, (_, i) => budget.tryAcquire({ sentAt: 990 + i / 40, now: 1000 + i / 80 }));
    expect(retried.every(Boolean)).toBe(true);
    expect(budget.spent).toBe(1);
    // A retry sent into the dying service and cut before the event's last resets arrive pays, and the rest of the
    // event stays paid for.
    expect(budget.tryAcquire({ sentAt: 1001, now: 1002 })).toBe(true);
    expect(budget.spent).toBe(2);
    expect(budget.tryAcquire({ sentAt: 999, now: 1003 })).toBe(true);
    expect(budget.spent).toBe(2);
    // Once the service accepted again, a cut of a request sent after the event began is a new event: it spends one.
    budget.recordAccepted();
    expect(budget.tryAcquire({ sentAt: 1200, now: 1210 })).toBe(true);
    expect(budget.spent).toBe(3);
    expect(budget.tryAcquire({ sentAt: 1205, now: 1211 })).toBe(true);
    expect(budget.spent).toBe(3);
    // HTTP errors (no cut) still spend one each.
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.spent).toBe(4);
  });

  it('a service that stops working and cuts every connection: its first window is retried whole, then it receives at most rows + budget + that window', () => {
    const rows = 10_000;
    const window = 400;
    const maxAttempts = 5;
    const budget = new RetryBudget();
    let requests = 0;
    let now = 0;
    // Waves of a full window; every request is cut 10 ms after it left; rows are retried until refused.
    const waiting: number[] = [];
    let next = 0;
    while (next < rows || waiting.length > 0) {
      const wave: number[] = [];
      while (wave.length < window && waiting.length > 0) wave.push(waiting.shift() as number);
      while (wave.length < window && next < rows) {
        budget.recordRequest();
        wave.push(1);
        next++;
      }
      requests += wave.length;
      const sentAt = now;
      now += 10;
      for (const attempts of wave) if (attempts < maxAttempts && budget.tryAcquire({ sentAt, now })) waiting.push(attempts + 1);
      if (sentAt === 0) expect(waiting).toHaveLength(window);
    }
    expect(requests).toBeLessThanOrEqual(rows + 50 + 0.1 * rows + window);
  });

  it('rejects negative settings', () => {
    expect(() => new RetryBudget({ ratio: -1 })).toThrow(RangeError);
    expect(() => new RetryBudget({ minRetries: Number.NaN })).toThrow(RangeError);
  });
});
