import { describe, expect, it } from 'vitest';
import { describeFaults } from '../../../src/sandbox/option-text.js';

describe("the sandbox's faults in words", () => {
  it.each([
    [{}, undefined],
    [{ latency: 20 }, 'latency 20 ms'],
    [{ latency: { min: 10, max: 50 }, failRate: 0.2, failStatus: 503 }, 'latency 10-50 ms, fail rate 0.2 (HTTP 503)'],
    [{ rateLimit: 5 }, 'rate limit 5/s (Retry-After 1)'],
    [{ rateLimit: 100, rateBurst: 1 }, 'rate limit 100/s (Retry-After 1, burst 1)'],
    [{ capacity: 2, queue: 0, dropRate: 0.1 }, 'capacity 2 (queue 0), drop rate 0.1'],
    [{ capacity: 2, spikeRate: 0.5, seed: 7 }, 'capacity 2 (queue unlimited), latency spikes of 2000 ms at rate 0.5, seed 7'],
  ])('the faults of %j in words', (options, words) => {
    expect(describeFaults(options)).toBe(words);
  });
});
