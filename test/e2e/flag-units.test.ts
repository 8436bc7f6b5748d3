import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * Durations take units everywhere (`500ms`, `30s`, `2m`), and the bare numbers of before keep the unit each option
 * documented (`--timeout` ms, `--give-up-after` s); anything else is a usage error naming the option, before anything
 * is sent. One name per idea: the sandbox's `--max-body` (as listen's), its old `--max-body-bytes` still taken.
 */

/** The settings of the run_start event of a `--log-format json` run. */
function runStart(stderr: string): Record<string, unknown> {
  const line = stderr.split('\n').find((text) => text.includes('"event":"run_start"'));
  expect(line, stderr).toBeDefined();
  return (JSON.parse(line ?? '{}') as { settings: Record<string, unknown> }).settings;
}

const PUBLISH = ['publish', 'fixtures/catalog.csv', '--sandbox', '--log-format', 'json'];

describe('durations on the command line', () => {
  it('publish takes --timeout 30s and --give-up-after 2m, in the units the run reads', async () => {
    const result = await runCli([...PUBLISH, '--timeout', '30s', '--give-up-after', '2m']);
    expect(result.code, result.stderr).toBe(0);
    expect(runStart(result.stderr)).toMatchObject({ timeout_ms: 30_000, give_up_after_s: 120 });
  });

  it('a bare number keeps the unit documented before: --timeout 30000 is 30 s, --give-up-after 90 is 90 s', async () => {
    const result = await runCli([...PUBLISH, '--timeout', '30000', '--give-up-after', '90', '--connect-timeout', '1.5s']);
    expect(result.code, result.stderr).toBe(0);
    expect(runStart(result.stderr)).toMatchObject({ timeout_ms: 30_000, give_up_after_s: 90, connect_timeout_ms: 1500 });
  });

  it('--timeout 5x is refused with exit 2, naming the option and how to write a duration; nothing is read or sent', async () => {
    const result = await runCli(['publish', 'fixtures/catalog.csv', '--sandbox', '--timeout', '5x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--timeout: '5x' is not a duration: use 500ms, 30s or 2m");
    expect(result.stdout).toBe('');
    const doctor = await runCli(['doctor', '--timeout', '50ms']);
    expect(doctor.code).toBe(2);
    expect(doctor.stderr).toContain("--timeout: must be from 100ms to 10m, got '50ms'");
  });

  it("the sandbox's --max-body, and its old name --max-body-bytes, are one option", async () => {
    for (const flag of ['--max-body', '--max-body-bytes']) {
      const result = await runCli(['sandbox', flag, '0']);
      expect(result.code, flag).toBe(2);
      expect(result.stderr, flag).toContain('--max-body: must be a whole number from 1 to 1073741824');
    }
    const help = await runCli(['sandbox', '--help']);
    expect(help.stdout).toContain('--max-body <bytes>');
    expect(help.stdout).not.toContain('--max-body-bytes');
  });
});
