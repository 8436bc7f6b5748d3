import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { hasKcat, NO_KCAT, produce, startKafkaMock } from '../helpers/kafka-mock.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, publishEnv, writeCatalog } from '../helpers/publish.js';

/**
 * publish, validate and stream with `--log-format json` write one schema (issue 22): every stderr line is a JSON
 * object whose first keys are `ts` (ISO time) then `event`, and the events the commands share (`run_start`,
 * `row_failed`, `summary`) have the same keys in each.
 */

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

const SHARED = ['run_start', 'row_failed', 'summary'] as const;
const DEFAULTS = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'F-1', '--payment-policy-id', 'P-1', '--return-policy-id', 'R-1'];

type Line = Record<string, unknown> & { ts: string; event: string };

/** Every stderr line parsed; a line that is not JSON, or does not begin with `ts` and `event`, fails the test. */
function events(stderr: string): Line[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`stderr line is not JSON: ${line}`);
      }
      expect(Object.keys(parsed).slice(0, 2), line).toEqual(['ts', 'event']);
      expect(Number.isNaN(Date.parse(String(parsed.ts))), line).toBe(false);
      return parsed as Line;
    });
}

/** The keys of each shared event a command wrote, with those of `end` and the summary's envelope. */
function shape(lines: Line[]): Record<string, string[]> {
  const shapes: Record<string, string[]> = {};
  for (const line of lines) {
    if (!(SHARED as readonly string[]).includes(line.event) || shapes[line.event] !== undefined) continue;
    const keys = Object.keys(line);
    if (line.event === 'summary') keys.push(...Object.keys(line.end as object).filter((key) => key === 'kind' || key === 'exit_code' || key === 'why').map((key) => `end.${key}`));
    shapes[line.event] = keys.sort();
  }
  return shapes;
}

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess([]);
});
afterAll(async () => {
  await sandbox.stop();
});

/** A catalog of 5 rows, the third invalid (an image that is no URL). */
function catalog(dir: string): string {
  return writeCatalog(dir, 5, 'catalog.csv', (i) => (i === 2 ? csvRow(i).replace(/https:\/\/[^,]+/, 'not-a-url') : csvRow(i)));
}

async function publishLines(): Promise<Line[]> {
  const dir = tempDir('log-schema-publish-');
  const result = await runCli(['publish', catalog(dir), '--no-journal', '--log-format', 'json'], { cwd: dir, env: publishEnv(sandbox.url) });
  expect(result.code, result.stderr).toBe(1);
  return events(result.stderr);
}

async function validateLines(): Promise<Line[]> {
  const dir = tempDir('log-schema-validate-');
  const result = await runCli(['validate', catalog(dir), '--log-format', 'json'], { cwd: dir });
  expect(result.code, result.stderr).toBe(1);
  // The row lines are in the log, not on stdout.
  expect(result.stdout).toBe('');
  return events(result.stderr);
}

describe('one log schema for publish, validate and stream', () => {
  it('validate --log-format json: run_start, a row_failed per invalid row, and the summary with the verdict', async () => {
    const lines = await validateLines();
    expect(lines.map((line) => line.event)).toEqual(['run_start', 'row_failed', 'summary']);
    expect(lines[0]).toMatchObject({ command: 'validate', target: null, dry_run: false });
    expect(lines[1]).toMatchObject({ row: 3, outcome: 'invalid', sku: 'SKU-000002' });
    expect(lines[2]).toMatchObject({ end: { kind: 'completed', exit_code: 1 }, summary: { rows: 5, validated: 4, invalid: 1 } });
  });

  it('publish and validate: the shared events have the same keys', async () => {
    const [publish, validate] = await Promise.all([publishLines(), validateLines()]);
    expect(shape(validate)).toEqual(shape(publish));
    expect(Object.keys(shape(publish))).toEqual(expect.arrayContaining([...SHARED]));
  });

  it.skipIf(!kcat)('stream: every line is an event of the same envelope; run_start and summary have publish\'s keys', async () => {
    const mock = await startKafkaMock(1);
    try {
      const topic = 'log-schema';
      const messages = [0, 1, 2].map((i) => ({ key: `K-${i}`, value: JSON.stringify({ sku: `K-${i}`, title: `Item ${i}`, images_source: [`https://images.example.com/${i}.jpg`], overrides: { condition: 'NEW' } }) }));
      await produce(mock.bootstrap, topic, messages);
      const cwd = tempDir('log-schema-stream-');
      const child = spawnCli(['stream', `kafka://${mock.bootstrap}/${topic}`, '--group', 'schema', ...DEFAULTS, '--session-timeout', '6000', '--status-interval', '1', '--log-format', 'json'], { cwd, env: publishEnv(sandbox.url) });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = once(child, 'exit');
      const deadline = Date.now() + 40_000;
      while (!/"event":"stream_status","published":3\b/.test(stderr) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code, stderr).toBe(0);
      const lines = events(stderr);
      expect(lines[0]?.event, stderr).toBe('run_start');
      expect(lines.at(-1)?.event).toBe('summary');
      expect(lines[0]).toMatchObject({ command: 'stream', dry_run: false, settings: { group: 'schema' } });
      expect(lines.at(-1)).toMatchObject({ end: { kind: 'stopped', exit_code: 0 }, summary: { received: 3, published: 3 } });
      const publish = shape(await publishLines());
      const stream = shape(lines);
      expect(stream.run_start).toEqual(publish.run_start);
      expect(stream.summary).toEqual(publish.summary);
    } finally {
      await mock.stop();
    }
  }, 90_000);
});
