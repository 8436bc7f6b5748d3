import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { freePort } from '../helpers/fake-services.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { KEY, expectSound, expectWithin, publish } from '../helpers/service-health.js';

/**
 * Busy is not down, the chaos part (test/e2e/publish-service-health.test.ts holds the rest): a service killed with
 * SIGKILL mid-run and started again on the same port; the run goes on and publishes every row exactly once.
 */
describe.concurrent('listings publish: busy is not down, through a restart of the service', () => {
  // 1 s an answer: the window is at hundreds when the service goes away, all cut at once (one event of the retry
  // budget; counted per request they spent it, and the run ended with exit 3).
  it.for<[string, number]>([
    ['5-10', 300],
    ['1000', 250],
  ])('survives a restart of the service mid-run (SIGKILL, back on the same port 1.5 s later), latency %s ms', { timeout: 80_000 }, async ([latency, killAfter], { expect }) => {
    const port = await freePort();
    // startSandboxProcess passes `--port 0` only when args name no --port.
    const args = ['--port', String(port), '--api-key', KEY, '--latency', latency];
    const first = await startSandboxProcess(args);
    expect(first.url).toBe(`http://127.0.0.1:${port}`);
    const running = publish(first.url, 3_000, [], 60_000);
    // Kill it ~1 s into the sending, once rows were accepted: a service that accepted nothing before it went away
    // is a down one (exit 3 at once, by design). Node's start-up alone can take a second on a loaded machine.
    const since = Date.now();
    let before = await first.stats();
    while (before.created < killAfter && Date.now() - since < 20_000) {
      await sleep(50);
      before = await first.stats();
    }
    const exited = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await exited;
    await sleep(1_500);
    const second = await startSandboxProcess(args);
    expect(second.url).toBe(first.url);
    const run = await running;
    const after = await second.stats();
    expect(run.result.code, run.result.stderr).toBe(0);
    expectSound(expect, run, 3_000);
    expect(run.summary.published).toBe(3_000);
    expect(run.summary.failed + run.summary.not_attempted).toBe(0);
    // The kill really happened mid-run: both sandboxes created some of the rows.
    expect(before.created).toBeGreaterThan(0);
    expect(before.created).toBeLessThan(3_000);
    // (The first sandbox's final count is lost with it, so the union cannot be checked exactly.)
    expect(after.created).toBeGreaterThan(0);
    expect(after.created).toBeLessThanOrEqual(3_000);
    expect(after.duplicates).toBe(0);
    expectWithin(expect, run, 30_000, 50_000);
  });
});
