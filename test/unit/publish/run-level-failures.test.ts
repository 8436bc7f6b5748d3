import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../../src/errors.js';
import { failedWithTheRun, type RowOutcome } from '../../../src/publish/outcome.js';
import { describeRejected } from '../../../src/publish/task.js';

function failed(reason: string): RowOutcome {
  return { index: 0, location: { source: 'catalog.csv', line: 2 }, outcome: 'failed', reason, attempts: 1, durationMs: 1 };
}

describe('failedWithTheRun: a row refused because the service stopped the run, not for itself', () => {
  it('every reason a refusal of the key or the endpoint gives a row', () => {
    for (const error of [new ApiError(401, 'HTTP 401', null), new ApiError(403, 'HTTP 403', null), new ApiError(404, 'HTTP 404', null), new ApiError(301, 'HTTP 301', null), new NetworkError('refused', {})]) {
      expect(failedWithTheRun(failed(describeRejected(error).row)), String(error)).toBe(true);
    }
    expect(failedWithTheRun(failed('service unusable'))).toBe(true);
  });

  it("a row's own failure, or a row not attempted, is not", () => {
    expect(failedWithTheRun(failed('HTTP 400 Bad Request'))).toBe(false);
    expect(failedWithTheRun(failed('retry budget spent'))).toBe(false);
    expect(failedWithTheRun({ ...failed('service unusable'), outcome: 'not_attempted' })).toBe(false);
  });
});
