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

  it('rejects negative settings', () => {
    expect(() => new RetryBudget({ ratio: -1 })).toThrow(RangeError);
    expect(() => new RetryBudget({ minRetries: Number.NaN })).toThrow(RangeError);
  });
});
