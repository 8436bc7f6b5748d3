import { describe, expect, it } from 'vitest';
import { describeFaults, sandboxOptionsFromText } from '../../../src/sandbox/option-text.js';
import { sandboxOptionIssues } from '../../../src/sandbox/options.js';
import { redact } from '../../../src/secrets.js';

describe("the sandbox's options as text", () => {
  it('reads decimals and latency ranges; what is not a decimal is NaN, refused by the range checks', () => {
    expect(sandboxOptionsFromText({ port: '0', latency: '10-50', retryAfterSeconds: '2', dataFile: 'd.ndjson', savedDefaults: true })).toEqual({
      port: 0,
      latency: { min: 10, max: 50 },
      retryAfterSeconds: 2,
      dataFile: 'd.ndjson',
      savedDefaults: true,
    });
    const hex = sandboxOptionsFromText({ port: '0x10', seed: '' });
    expect(hex.port).toBeNaN();
    expect(hex.seed).toBeNaN();
    expect(sandboxOptionIssues(hex).map((issue) => issue.path)).toEqual(['port', 'seed']);
  });

  it('registers the webhook secret', () => {
    sandboxOptionsFromText({ webhookUrl: 'http://127.0.0.1:1/', webhookSecret: 'whsec-text-test' });
    expect(redact('signed with whsec-text-test')).not.toContain('whsec-text-test');
  });

  it.each([
    [{}, undefined],
    [{ latency: 20 }, 'latency 20 ms'],
    [{ latency: { min: 10, max: 50 }, failRate: 0.2, failStatus: 503 }, 'latency 10-50 ms, fail rate 0.2 (HTTP 503)'],
    [{ rateLimit: 5 }, 'rate limit 5/s (Retry-After 1)'],
    [{ capacity: 2, queue: 0, dropRate: 0.1 }, 'capacity 2 (queue 0), drop rate 0.1'],
    [{ capacity: 2, spikeRate: 0.5, seed: 7 }, 'capacity 2 (queue unlimited), latency spikes of 2000 ms at rate 0.5, seed 7'],
  ])('the faults of %j in words', (options, words) => {
    expect(describeFaults(options)).toBe(words);
  });
});
