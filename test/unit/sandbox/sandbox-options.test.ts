import { describe, expect, it } from 'vitest';
import { sandboxOptionsFromFlags, type SandboxFlags } from '../../../src/cli/commands/sandbox.js';
import { UsageError } from '../../../src/errors.js';
import { resolveSandboxOptions } from '../../../src/sandbox/options.js';
import { TokenBucket } from '../../../src/sandbox/rate-limit.js';
import { seededRandom } from '../../../src/sandbox/random.js';

describe('listings sandbox flags -> options', () => {
  const valid: [SandboxFlags, object][] = [
    [{}, {}],
    [{ port: '0', host: '0.0.0.0', apiKey: 'k-1' }, { port: 0, host: '0.0.0.0', apiKey: 'k-1' }],
    [{ savedDefaults: true }, { savedDefaults: true }],
    // Durations arrive read by the flag table (src/options/value.ts): milliseconds, or a range of them.
    [{ latency: 20 }, { latency: 20 }],
    [{ latency: { min: 10, max: 50 } }, { latency: { min: 10, max: 50 } }],
    [{ failRate: '0.25', failStatus: '503' }, { failRate: 0.25, failStatus: 503 }],
    [{ failRate: '1', dropRate: '0' }, { failRate: 1, dropRate: 0 }],
    [{ rateLimit: '0.5', retryAfter: 0 }, { rateLimit: 0.5, retryAfterSeconds: 0 }],
    [{ rateLimit: '100', rateBurst: '1' }, { rateLimit: 100, rateBurst: 1 }],
    [{ capacity: '8' }, { capacity: 8 }],
    [{ capacity: '1', queue: '0' }, { capacity: 1, queue: 0 }],
    [{ seed: '-12' }, { seed: -12 }],
    [{ maxBody: 1024 }, { maxBodyBytes: 1024 }],
  ];
  for (const [flags, options] of valid) {
    it(`accepts ${JSON.stringify(flags)}`, () => {
      expect(sandboxOptionsFromFlags(flags)).toEqual(options);
    });
  }

  const invalid: [SandboxFlags, RegExp][] = [
    [{ port: '70000' }, /^--port must be a whole number from 0 to 65535 \(got "70000"\)$/],
    [{ port: '' }, /--port/],
    [{ port: '0x10' }, /--port/],
    [{ port: '1.5' }, /--port/],
    [{ host: ' ' }, /--host must not be empty/],
    [{ apiKey: '' }, /^--api-key must be non-empty, without spaces$/],
    [{ latency: { min: 50, max: 10 } }, /--latency/],
    [{ failRate: '1.5' }, /--fail-rate must be a share from 0 to 1/],
    [{ failRate: 'half' }, /--fail-rate/],
    [{ failStatus: '200' }, /--fail-status/],
    [{ rateLimit: '0' }, /--rate-limit/],
    [{ rateLimit: '10', rateBurst: '0' }, /^--rate-burst must be a whole number of requests >= 1 \(got "0"\)$/],
    [{ rateLimit: '10', rateBurst: '2.5' }, /--rate-burst/],
    [{ rateBurst: '5' }, /^--rate-burst applies only with a rate limit/],
    [{ capacity: '0' }, /^--capacity must be a whole number of requests >= 1 \(got "0"\)$/],
    [{ capacity: '-1' }, /--capacity/],
    [{ capacity: '1.5' }, /--capacity/],
    [{ capacity: '2', queue: '-1' }, /^--queue must be a whole number of requests >= 0 \(got "-1"\)$/],
    [{ capacity: '2', queue: '1.5' }, /--queue/],
    [{ queue: '3' }, /^--queue applies only with a capacity/],
    [{ dropRate: '-0.1' }, /--drop-rate/],
    [{ seed: 'abc' }, /--seed/],
    [{ maxBody: 0 }, /^--max-body must be a whole number of bytes >= 1$/],
  ];
  for (const [flags, message] of invalid) {
    it(`rejects ${JSON.stringify(flags)}`, () => {
      expect(() => sandboxOptionsFromFlags(flags)).toThrow(UsageError);
      expect(() => sandboxOptionsFromFlags(flags)).toThrow(message);
    });
  }

  it('lists every bad flag at once and never echoes the key', () => {
    const run = () => sandboxOptionsFromFlags({ port: 'x', failRate: '2', apiKey: 'has space' });
    expect(run).toThrow(/invalid sandbox options:\n {2}--port .*\n {2}--api-key .*\n {2}--fail-rate/);
    expect(run).not.toThrow(/has space/);
  });
});

describe('resolveSandboxOptions', () => {
  it('applies the defaults', () => {
    expect(resolveSandboxOptions({})).toMatchObject({ host: '127.0.0.1', port: 4010, apiKey: 'sandbox-key', savedDefaults: false, failRate: 0, dropRate: 0, retryAfterSeconds: 1, maxBodyBytes: 1048576 });
    expect(resolveSandboxOptions({ latency: 20 }).latency).toEqual({ min: 20, max: 20 });
    expect(resolveSandboxOptions({})).toMatchObject({ capacity: undefined, queue: Number.POSITIVE_INFINITY });
    expect(resolveSandboxOptions({ capacity: 2, queue: Number.POSITIVE_INFINITY })).toMatchObject({ capacity: 2, queue: Number.POSITIVE_INFINITY });
  });

  it('names every bad capacity and queue option in one ConfigError', () => {
    expect(() => resolveSandboxOptions({ capacity: 0, queue: -1 })).toThrow(/capacity must be a whole number of requests >= 1; queue must be a whole number of requests >= 0/);
    expect(() => resolveSandboxOptions({ queue: 1 })).toThrow(/queue applies only with a capacity/);
  });
});

describe('TokenBucket', () => {
  it('passes a burst of one second, then refills at the rate', () => {
    let now = 0;
    const bucket = new TokenBucket(4, undefined, () => now);
    const burst = Array.from({ length: 6 }, () => bucket.take());
    expect(burst).toEqual([true, true, true, true, false, false]);
    now += 249;
    expect(bucket.take()).toBe(false);
    now += 1;
    expect(bucket.take()).toBe(true);
    now += 10_000;
    expect(Array.from({ length: 5 }, () => bucket.take())).toEqual([true, true, true, true, false]);
  });

  it('passes a burst of the size given: 1 is a strict limiter, one request per interval', () => {
    let now = 0;
    const bucket = new TokenBucket(100, 1, () => now);
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
    now += 5;
    expect(bucket.take()).toBe(false);
    now += 6;
    expect(bucket.take()).toBe(true);
    now += 10_000;
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
  });

  it('allows at least one request for rates below 1/s', () => {
    let now = 0;
    const bucket = new TokenBucket(0.5, undefined, () => now);
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
    now += 2000;
    expect(bucket.take()).toBe(true);
  });
});

describe('seededRandom', () => {
  it('repeats for a seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const draws = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(draws);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});
