import { describe, expect, it } from 'vitest';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import { SummaryCounter, errorClass } from '../../../src/report/summary.js';

let n = 0;
function row(outcome: RowOutcome['outcome'], extra: Partial<RowOutcome> = {}): RowOutcome {
  return { index: n++, location: { source: 'c.csv', line: n + 1 }, sku: `S${n}`, outcome, attempts: 1, durationMs: 3, ...extra };
}

describe('errorClass', () => {
  it.each([
    ['published', row('published'), undefined],
    ['skipped', row('skipped', { reason: 'unchanged' }), undefined],
    ['invalid', row('invalid', { error: 'sku: is required' }), 'invalid'],
    ['HTTP 503', row('failed', { httpStatus: 503, error: 'unavailable' }), '503'],
    ['HTTP 400', row('failed', { httpStatus: 400 }), '400'],
    ['timeout', row('failed', { error: 'no answer within 30000 ms', errorKind: 'timeout' }), 'timeout'],
    ['network', row('failed', { error: 'connect ECONNREFUSED 127.0.0.1:9', errorKind: 'network' }), 'network'],
    ['a message that only looks like a timeout', row('failed', { error: 'no answer within reach', errorKind: 'network' }), 'network'],
    ['no message', row('failed'), 'network'],
  ])('%s -> %s', (_name, o, expected) => {
    expect(errorClass(o)).toBe(expected);
  });
});

describe('SummaryCounter', () => {
  it('counts every outcome; the counts add up to rows', () => {
    const counter = new SummaryCounter();
    const outcomes = [
      row('published'),
      row('published'),
      row('published'),
      row('failed', { httpStatus: 503 }),
      row('failed', { httpStatus: 503 }),
      row('failed', { httpStatus: 400 }),
      row('failed', { error: 'no answer within 10 ms', errorKind: 'timeout' }),
      row('failed', { error: 'socket hang up' }),
      row('invalid'),
      row('skipped', { reason: 'already published' }),
      row('skipped', { reason: 'other shard' }),
      row('not_attempted'),
      row('validated'),
      row('enqueued'),
    ];
    for (const o of outcomes) counter.add(o);
    const summary = counter.summary(2000, ['r.csv', 'r.xml'], { requests: 14, throttled: 2, overloaded: 1, timeouts: 1, peakConcurrency: 32 });
    expect(summary).toEqual({
      rows: 14,
      published: 3,
      failed: 5,
      invalid: 1,
      skipped: 2,
      not_attempted: 1,
      validated: 1,
      enqueued: 1,
      duration_ms: 2000,
      rows_per_second: 5.5, // (3 + 5 + 1 + 1 + 1) rows of work in 2 s
      errors_by_status: { '400': 1, '503': 2, invalid: 1, network: 1, timeout: 1 },
      requests: 14,
      throttled: 2,
      overloaded: 1,
      timeouts: 1,
      peak_concurrency: 32,
      report: ['r.csv', 'r.xml'],
      complete: true,
      interrupted: false,
      total: 14,
    });
    expect(summary.published + summary.failed + summary.invalid + summary.skipped + summary.not_attempted + summary.validated + summary.enqueued).toBe(summary.rows);
    expect(Object.keys(summary)).toEqual([
      'rows',
      'published',
      'failed',
      'invalid',
      'skipped',
      'not_attempted',
      'validated',
      'enqueued',
      'duration_ms',
      'rows_per_second',
      'errors_by_status',
      'requests',
      'throttled',
      'overloaded',
      'timeouts',
      'peak_concurrency',
      'report',
      'complete',
      'interrupted',
      'total',
    ]);
  });

  it.each([
    [0, 10, 0],
    [1000, 10, 10],
    [3000, 10, 3.3],
    [1, 1, 1000],
  ])('duration %i ms with %i rows published: %f rows/s', (ms, rows, rate) => {
    const counter = new SummaryCounter();
    for (let i = 0; i < rows; i++) counter.add(row('published'));
    expect(counter.summary(ms, []).rows_per_second).toBe(rate);
  });

  it('an empty run', () => {
    const summary = new SummaryCounter().summary(5, []);
    expect(summary.rows).toBe(0);
    expect(summary.errors_by_status).toEqual({});
  });

  it('the report list is a copy', () => {
    const paths = ['a.csv'];
    const summary = new SummaryCounter().summary(5, paths);
    paths.push('b.csv');
    expect(summary.report).toEqual(['a.csv']);
  });
});
