import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError, NetworkError, TimeoutError } from '../../../src/errors.js';
import { DEFAULT_RETRY_POLICY, decideRetry, isPushback, type RetryPolicy } from '../../../src/publish/retry-policy.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
const api = (status: number, retryAfter?: string) => new ApiError(status, `HTTP ${status}`, undefined, retryAfter);
const network = new NetworkError('connection reset', { code: 'ECONNRESET' });
const timeout = new TimeoutError(30_000);

/** `n`: the attempts so far of the failed one's sort (pushback or real error), as the engine counts them. */
function decide(error: unknown, n: number, random = 0.5, p: RetryPolicy = policy) {
  const pushback = isPushback(error);
  return decideRetry({ error, attempt: pushback ? 0 : n, pushbacks: pushback ? n : 0, policy: p, nowMs: NOW, random: () => random });
}

describe('decideRetry: what is retried', () => {
  const retried: [string, unknown][] = [
    ['network error', network],
    ['timeout', timeout],
    ...[408, 425, 429, 500, 502, 503, 504].map((s): [string, unknown] => [`HTTP ${s}`, api(s)]),
  ];
  it.each(retried)('%s is retried', (_name, error) => {
    expect(decide(error, 1).retry).toBe(true);
  });

  const refused: [string, unknown, string][] = [
    ['HTTP 400', api(400), 'HTTP 400 is not retried'],
    ['HTTP 401', api(401), 'HTTP 401 is not retried'],
    ['HTTP 403', api(403), 'HTTP 403 is not retried'],
    ['HTTP 404', api(404), 'HTTP 404 is not retried'],
    ['HTTP 409', api(409), 'HTTP 409 is not retried'],
    ['HTTP 422', api(422), 'HTTP 422 is not retried'],
    ['HTTP 501', api(501), 'HTTP 501 is not retried'],
    ['a config error', new ConfigError('x'), 'an unexpected ConfigError is not retried'],
    ['a string', 'boom', 'an unexpected error is not retried'],
  ];
  it.each(refused)('%s is not retried', (_name, error, reason) => {
    expect(decide(error, 1)).toEqual({ retry: false, reason });
  });
});

describe('decideRetry: attempts', () => {
  it.each([
    [1, true],
    [4, true],
    [5, false],
    [6, false],
  ])('after attempt %i of 5: retry %s', (attempt, expected) => {
    const d = decide(api(500), attempt);
    expect(d.retry).toBe(expected);
    if (!d.retry) expect(d.reason).toBe(`gave up after ${attempt} attempts`);
  });

  it('maxAttempts 1 never retries', () => {
    expect(decide(network, 1, 0.5, { ...policy, maxAttempts: 1 })).toEqual({ retry: false, reason: 'gave up after 1 attempt' });
  });
});

describe('decideRetry: backoff with full jitter', () => {
  const p: RetryPolicy = { maxAttempts: 20, baseDelayMs: 200, maxDelayMs: 30_000, maxRetryAfterMs: 60_000, maxPushbacks: 30 };
  const cases: [number, number, number][] = [
    // attempt, random, delay
    [1, 0, 0],
    [1, 0.5, 100],
    [1, 0.999, 199],
    [2, 0.5, 200],
    [3, 0.5, 400],
    [4, 0.25, 400],
    [8, 0.5, 12_800],
    [9, 0.5, 15_000], // 51_200 capped to 30_000
    [15, 0.999, 29_970],
  ];
  it.each(cases)('attempt %i, random %f -> %i ms', (attempt, random, delay) => {
    expect(decide(api(500), attempt, random, p)).toEqual({ retry: true, delayMs: delay, pushback: false });
  });

  it('never exceeds maxDelayMs whatever the attempt', () => {
    for (let attempt = 1; attempt < 19; attempt++) {
      const d = decide(network, attempt, 0.9999999, p);
      expect(d.retry && d.delayMs <= p.maxDelayMs).toBe(true);
    }
  });
});

describe('decideRetry: Retry-After', () => {
  it('Retry-After: 2 on a 429 delays the next attempt by >= 2000 ms', () => {
    for (const random of [0, 0.3, 0.999]) {
      const d = decide(api(429, '2'), 1, random);
      expect(d.retry).toBe(true);
      if (d.retry) expect(d.delayMs).toBeGreaterThanOrEqual(2000);
    }
  });

  const cases: [string, string, number, number, { retry: true; delayMs: number; pushback: boolean } | { retry: false; reason: string }][] = [
    ['seconds above the backoff', '2', 1, 0.5, { retry: true, delayMs: 2000, pushback: true }],
    ['backoff above the seconds', '1', 4, 0.9, { retry: true, delayMs: 1440, pushback: true }],
    ['zero', '0', 1, 0.5, { retry: true, delayMs: 100, pushback: true }],
    ['HTTP date 10 s ahead', 'Sun, 01 Jun 2025 12:00:10 GMT', 1, 0.5, { retry: true, delayMs: 10_000, pushback: true }],
    ['HTTP date in the past', 'Sun, 01 Jun 2025 11:00:00 GMT', 1, 0.5, { retry: true, delayMs: 100, pushback: true }],
    ['garbage is ignored', 'later please', 1, 0.5, { retry: true, delayMs: 100, pushback: true }],
    ['exactly the cap', '60', 1, 0.5, { retry: true, delayMs: 60_000, pushback: true }],
    ['above the cap', '120', 1, 0.5, { retry: false, reason: 'service asked to wait 120 s, above the 60 s cap' }],
    ['date above the cap', 'Sun, 01 Jun 2025 12:05:00 GMT', 1, 0.5, { retry: false, reason: 'service asked to wait 300 s, above the 60 s cap' }],
  ];
  it.each(cases)('%s: Retry-After %j', (_name, header, attempt, random, expected) => {
    expect(decide(api(503, header), attempt, random)).toEqual(expected);
  });

  it('the pushback limit wins over Retry-After', () => {
    expect(decide(api(429, '1'), 30)).toEqual({ retry: false, reason: 'gave up after 30 attempts (the service kept answering HTTP 429)' });
  });

  it('a Retry-After on a status that is not retried changes nothing', () => {
    expect(decide(api(400, '1'), 1)).toEqual({ retry: false, reason: 'HTTP 400 is not retried' });
  });
});

describe('decideRetry: pushback is counted apart', () => {
  it.each([429, 502, 503, 504])('HTTP %i is pushback: retried past maxAttempts, up to maxPushbacks', (status) => {
    expect(isPushback(api(status))).toBe(true);
    expect(decide(api(status), 10).retry).toBe(true);
    expect(decide(api(status), 29).retry).toBe(true);
    expect(decide(api(status), 30)).toEqual({ retry: false, reason: `gave up after 30 attempts (the service kept answering HTTP ${status})` });
  });

  it('a timeout is pushback; a 500 and a reset connection are real errors', () => {
    expect(isPushback(timeout)).toBe(true);
    expect(isPushback(api(500))).toBe(false);
    expect(isPushback(network)).toBe(false);
    expect(decide(api(500), 5)).toEqual({ retry: false, reason: 'gave up after 5 attempts' });
  });

  it('the real attempts and the pushbacks of one row add up in the reason', () => {
    const d = decideRetry({ error: api(500), attempt: 5, pushbacks: 7, policy, nowMs: NOW, random: () => 0.5 });
    expect(d).toEqual({ retry: false, reason: 'gave up after 12 attempts' });
  });
});
