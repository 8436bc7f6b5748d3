import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/report/summary.js';
import { startHungService } from '../helpers/fake-services.js';
import { publishCatalog, publishEnv } from '../helpers/publish.js';

/**
 * The default per-request timeout, end to end: a service that accepts connections and never answers is given up on
 * after 30 s (three timeouts in a row with nothing accepted open the breaker at once), with exit 3. test/e2e runs the
 * same path with `--timeout 3s`; this is the half minute `npm test` does not wait for.
 */
describe('listings publish against a hung service, with the default timeout', () => {
  it('gives up after the default 30 s: exit 3, no answer named, every row accounted for', async () => {
    const hung = await startHungService();
    const { result } = await publishCatalog(50, ['--json'], { env: publishEnv(hung.url, 'sk_live_STRESS_timeout_5c2e'), timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^error the service could not be used: .*no answer/im);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    const summary = JSON.parse(result.stdout) as RunSummary;
    expect(summary.published).toBe(0);
    expect(summary.published + summary.failed + summary.not_attempted).toBe(50);
    expect(summary.timeouts).toBeGreaterThanOrEqual(3);
    expect(summary.duration_ms).toBeGreaterThanOrEqual(29_000);
    expect(summary.duration_ms).toBeLessThan(60_000);
    expect(hung.count()).toBeGreaterThan(0);
  });
});
