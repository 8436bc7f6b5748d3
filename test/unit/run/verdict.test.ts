import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError, NetworkError, SourceError, TimeoutError, UsageError } from '../../../src/errors.js';
import type { PublishEnd } from '../../../src/publish/engine-types.js';
import { endingOfError, exitCodeOfError, NO_ROWS, publishVerdict, verdictOf, type PublishVerdictInput, type RunEnding, type RunKind, type VerdictCounts } from '../../../src/run/verdict.js';

/** The counts of a run: every count 0 but those given. */
function counts(given: Partial<VerdictCounts & { interrupted: boolean }>): VerdictCounts & { interrupted: boolean } {
  return { ...NO_ROWS, interrupted: false, ...given };
}

const completed: PublishEnd = { kind: 'completed' };
const systemic: PublishEnd = { kind: 'systemic', error: new ApiError(401, 'HTTP 401 Unauthorized', null), requests: 1, reason: 'API key rejected (HTTP 401 Unauthorized)' };
const diskFull = { role: 'journal', path: 'run.journal', error: Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }) };
const cut = new SourceError({ source: 'catalog.csv', line: 7 }, 'unclosed quote');

describe('publishVerdict: every end of a publish x its counts -> exit code, kind and why', () => {
  const table: [name: string, input: PublishVerdictInput, code: number, kind: string, why: string][] = [
    ['all published', { end: completed, summary: counts({ rows: 100, published: 100 }) }, 0, 'ok', 'all 100 rows published'],
    ['one row', { end: completed, summary: counts({ rows: 1, published: 1 }) }, 0, 'ok', '1 row published'],
    ['some skipped (resumed, unchanged)', { end: completed, summary: counts({ rows: 1200, published: 1000, skipped: 200 }) }, 0, 'ok', '1,000 rows published, 200 skipped'],
    ['all skipped', { end: completed, summary: counts({ rows: 5, skipped: 5 }) }, 0, 'ok', 'nothing to do: 5 rows skipped'],
    ['an empty source', { end: completed, summary: counts({}) }, 0, 'ok', 'the source had no rows'],
    ['a dry run', { end: completed, summary: counts({ rows: 3, validated: 3 }), dryRun: true }, 0, 'ok', 'all 3 rows valid (nothing was sent)'],
    ['rows failed', { end: completed, summary: counts({ rows: 100, published: 97, failed: 3 }) }, 1, 'rows-failed', '3 rows failed; 97 published'],
    ['failed and invalid', { end: completed, summary: counts({ rows: 1100, published: 95, failed: 3, invalid: 2, skipped: 1000 }) }, 1, 'rows-failed', '3 rows failed, 2 invalid; 95 published, 1,000 skipped'],
    ['only invalid', { end: completed, summary: counts({ rows: 2, invalid: 2 }) }, 1, 'rows-failed', '2 rows invalid'],
    ['a dry run with invalid rows', { end: completed, summary: counts({ rows: 3, validated: 2, invalid: 1 }), dryRun: true }, 1, 'rows-failed', '1 row invalid; 2 valid (nothing was sent)'],
    ['not attempted rows fail a complete run', { end: completed, summary: counts({ rows: 2, published: 1, not_attempted: 1 }) }, 1, 'rows-failed', '1 row not attempted; 1 published'],
    [
      'the error limit',
      { end: { kind: 'max-errors', failed: 10 }, summary: counts({ rows: 100, published: 40, failed: 10, not_attempted: 50 }) },
      1,
      'max-errors',
      'the run stopped once 10 rows had failed, the most it was allowed; 40 rows published, 10 failed, 50 not attempted',
    ],
    ['a signal', { end: { kind: 'interrupted' }, summary: counts({ rows: 43, published: 40, not_attempted: 3, interrupted: true }) }, 130, 'interrupted', 'interrupted by a signal; 40 rows published, 3 not attempted'],
    [
      'the service unusable',
      { end: systemic, summary: counts({ rows: 20, failed: 1, not_attempted: 19 }) },
      3,
      'service',
      'the service could not be used, so nothing more was sent: API key rejected (HTTP 401 Unauthorized); 1 row failed, 19 not attempted',
    ],
    ['the source cut', { end: { kind: 'source', error: cut }, summary: counts({ rows: 5, published: 5 }) }, 4, 'source', 'the source could not be read to its end: catalog.csv:7: unclosed quote; 5 rows published'],
    ['a source that read no row', { end: { kind: 'source', error: cut }, summary: counts({}) }, 4, 'source', 'the source could not be read to its end: catalog.csv:7: unclosed quote; no row was read'],
    ['the catalog unusable (a usage error)', { end: { kind: 'source', error: new UsageError('no SKU column') }, summary: counts({}) }, 2, 'usage', 'no SKU column: nothing was sent'],
    ['the catalog unusable (a config error)', { end: { kind: 'source', error: new ConfigError('the mapping names no column') }, summary: counts({}) }, 2, 'usage', 'the mapping names no column: nothing was sent'],
    ['a remote source that timed out', { end: { kind: 'source', error: new TimeoutError(5000) }, summary: counts({ rows: 3, published: 3 }) }, 3, 'service', 'the service could not be used, so nothing more was sent: no answer within 5000 ms; 3 rows published'],
    ["a parser's own error is the source's", { end: { kind: 'source', error: new Error('Invalid Record Length') }, summary: counts({ rows: 1, published: 1 }) }, 4, 'source', 'the source could not be read to its end: Invalid Record Length; 1 row published'],
    [
      'an output that failed (the run stopped as if interrupted)',
      { end: { kind: 'interrupted' }, summary: counts({ rows: 3, published: 2, not_attempted: 1 }), outputFailure: diskFull },
      74,
      'output',
      'the journal run.journal could not be written: ENOSPC: no space left on device, write; 2 rows published, 1 not attempted',
    ],
    // The order the CLI has always decided in: an output, the source, a signal, the service, the limit, the rows.
    ['an output beats the source', { end: { kind: 'source', error: cut }, summary: counts({ rows: 1, published: 1 }), outputFailure: diskFull }, 74, 'output', 'the journal run.journal could not be written: ENOSPC: no space left on device, write; 1 row published'],
    ['the source beats a signal', { end: { kind: 'source', error: cut }, summary: counts({ rows: 1, published: 1, interrupted: true }) }, 4, 'source', 'the source could not be read to its end: catalog.csv:7: unclosed quote; 1 row published'],
    ['a signal beats the service', { end: systemic, summary: counts({ rows: 2, failed: 1, not_attempted: 1, interrupted: true }) }, 130, 'interrupted', 'interrupted by a signal; 1 row failed, 1 not attempted'],
    ['a signal while the outputs closed', { end: completed, summary: counts({ rows: 2, published: 1, failed: 1, interrupted: true }) }, 130, 'interrupted', 'interrupted by a signal; 1 row published, 1 failed'],
    ['the service beats the limit', { end: systemic, summary: counts({ rows: 1, failed: 1 }) }, 3, 'service', 'the service could not be used, so nothing more was sent: API key rejected (HTTP 401 Unauthorized); 1 row failed'],
  ];
  it.each(table)('%s', (_name, input, code, kind, why) => {
    expect(publishVerdict(input)).toEqual({ exitCode: code, kind, why });
  });
});

describe('verdictOf: validate and stream', () => {
  const table: [run: RunKind, end: RunEnding, given: Partial<VerdictCounts>, code: number, why: string][] = [
    ['validate', { kind: 'complete' }, { rows: 100, validated: 100 }, 0, 'all 100 rows valid'],
    ['validate', { kind: 'complete' }, { rows: 101, validated: 100, skipped: 1 }, 0, '100 rows valid, 1 skipped'],
    ['validate', { kind: 'complete' }, { rows: 100, validated: 98, invalid: 2 }, 1, '2 rows invalid; 98 valid'],
    ['validate', endingOfError(cut), { rows: 5, validated: 4, invalid: 1 }, 4, 'the source could not be read to its end: catalog.csv:7: unclosed quote; 4 rows valid, 1 invalid'],
    // A stream stopped when asked ends well whatever it dead-lettered: the dead-letter topic is its record.
    ['stream', { kind: 'complete' }, { rows: 100, published: 97, dead_lettered: 3 }, 0, 'the stream stopped cleanly: 97 messages published, 3 dead-lettered'],
    ['stream', { kind: 'complete' }, {}, 0, 'the stream stopped cleanly: no message arrived'],
    ['stream', { kind: 'interrupted', abandoned: true }, { rows: 10, published: 9 }, 130, 'abandoned by a second signal: what was not committed is read again by the next reader'],
    ['stream', { kind: 'service', reason: 'API key rejected' }, { rows: 10 }, 3, 'the service could not be used, so nothing more was sent: API key rejected'],
    ['stream', { kind: 'source', reason: 'the group coordinator is gone' }, {}, 4, 'Kafka could not be used: the group coordinator is gone'],
  ];
  it.each(table)('%s %j %j -> %i', (run, end, given, code, why) => {
    const verdict = verdictOf(run, end, { ...NO_ROWS, ...given });
    expect([verdict.exitCode, verdict.why]).toEqual([code, why]);
  });
});

describe('exitCodeOfError: the one catch maps an error kind as a run does', () => {
  it.each([
    [new UsageError('x'), 2],
    [new ConfigError('x'), 2],
    [new SourceError({ source: 'a.csv' }, 'x'), 4],
    [new ApiError(500, 'x', null), 3],
    [new NetworkError('x', {}), 3],
    [new TimeoutError(1), 3],
  ])('%s -> %i', (error, code) => {
    expect(exitCodeOfError(error)).toBe(code);
  });
});

describe('the why', () => {
  it('names no command-line flag', () => {
    const ends: PublishEnd[] = [completed, { kind: 'max-errors', failed: 1 }, { kind: 'interrupted' }, systemic, { kind: 'source', error: cut }];
    for (const end of ends) {
      for (const dryRun of [false, true]) expect(publishVerdict({ end, summary: counts({ rows: 3, published: 1, failed: 1, not_attempted: 1 }), dryRun }).why).not.toMatch(/--/);
    }
  });
});
