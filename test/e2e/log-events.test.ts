import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishCatalog, publishEnv, writeCatalog } from '../helpers/publish.js';

/**
 * `--log-format json`, `--verbose` and `--debug` of the built binary against a sandbox that throttles (50 requests/s)
 * and fails a tenth of the requests (500/503): every stderr line is an event of the documented schema, and the key
 * appears nowhere.
 */

const KEY = 'sk_live_LOGS_e2e_5c2a9f10';

const ts = z.iso.datetime();
const nullableNumber = z.number().nullable();
const base = { ts };
/** The documented schema (README "Structured logs"): one object per line, `ts`, `event`, then its fields. */
const Event = z.discriminatedUnion('event', [
  z.strictObject({
    ...base,
    event: z.literal('run_start'),
    version: z.string(),
    command: z.enum(['publish', 'validate']),
    sources: z.array(z.string()),
    profile: z.string(),
    target: z.string().nullable(),
    sandbox: z.boolean(),
    marketplace: z.string().nullable(),
    shape: z.string().nullable(),
    dry_run: z.boolean(),
    settings: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({ ...base, event: z.literal('request'), row: z.number().int().positive(), attempt: z.number().int().positive(), method: z.literal('POST'), path: z.string(), status: nullableNumber, result: z.string(), ms: z.number().nonnegative() }),
  z.strictObject({ ...base, event: z.literal('retry'), row: z.number().int().positive(), attempt: z.number().int().min(1), delay_ms: z.number().nonnegative(), reason: z.string() }),
  z.strictObject({ ...base, event: z.literal('limit'), limit: z.number().int().positive(), previous: nullableNumber, reason: z.string(), changes: z.number().int().positive() }),
  z.strictObject({ ...base, event: z.literal('pace'), rate: nullableNumber, previous: nullableNumber, reason: z.enum(['throttled', 'overloaded']), hold_ms: nullableNumber, changes: z.number().int().positive() }),
  z.strictObject({ ...base, event: z.literal('breaker'), state: z.enum(['closed', 'open', 'half-open']), previous: z.enum(['closed', 'open', 'half-open']) }),
  z.strictObject({ ...base, event: z.literal('row_failed'), row: z.number().int().positive(), location: z.string(), sku: z.string().nullable(), outcome: z.enum(['failed', 'invalid']), status: nullableNumber, attempts: z.number().int(), reason: z.string().nullable(), error: z.string().nullable() }),
  z.strictObject({ ...base, event: z.literal('capped'), of: z.enum(['row_failed', 'retry']), after: z.number().int() }),
  z.strictObject({ ...base, event: z.literal('run_stopped'), kind: z.enum(['interrupted', 'max-errors', 'systemic', 'source']), reason: z.string(), hint: z.string().nullable(), requests: nullableNumber }),
  z.strictObject({ ...base, event: z.literal('message'), level: z.string(), message: z.string() }),
  z.strictObject({ ...base, event: z.literal('debug'), message: z.string(), fields: z.record(z.string(), z.unknown()) }),
  z.strictObject({
    ...base,
    event: z.literal('summary'),
    end: z.looseObject({ kind: z.enum(['completed', 'interrupted', 'max-errors', 'systemic', 'source']) }),
    next_step: z.strictObject({ command: z.string(), why: z.string() }).nullable(),
    not_logged: z.strictObject({ row_failed: z.number().int(), retry: z.number().int() }),
    summary: z.looseObject({ rows: z.number(), published: z.number(), failed: z.number(), requests: z.number() }),
  }),
]);
type Event = z.infer<typeof Event>;

/** Every stderr line parsed and checked against the schema; a line that is not an event fails the test. */
function events(stderr: string): Event[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`stderr line is not JSON: ${line}`);
      }
      const checked = Event.safeParse(parsed);
      if (!checked.success) throw new Error(`stderr line does not follow the schema: ${line}\n${checked.error.message}`);
      return checked.data;
    });
}

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess(['--api-key', KEY, '--rate-limit', '50', '--fail-rate', '0.1', '--seed', '7']);
});
afterAll(async () => {
  await sandbox.stop();
});

async function publish(rows: number, extra: string[]) {
  return (await publishCatalog(rows, ['--no-journal', ...extra], { env: publishEnv(sandbox.url, KEY), timeoutMs: 20_000 })).result;
}

describe('--log-format json', () => {
  it('writes only schema events on stderr: run_start first, retries, limit and pace changes, summary last; --json stays on stdout', async () => {
    const result = await publish(80, ['--log-format', 'json', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const all = events(result.stderr);
    const names = all.map((event) => event.event);
    expect(names[0]).toBe('run_start');
    expect(names.at(-1)).toBe('summary');
    expect(names).toContain('retry');
    expect(names.some((name) => name === 'limit' || name === 'pace')).toBe(true);
    expect(names).toContain('pace'); // 50 requests/s: the service throttles
    const start = all[0] as Extract<Event, { event: 'run_start' }>;
    expect(start.target).toBe(new URL(sandbox.url).host);
    expect(start.settings.max_attempts).toBe(5);
    // No human line: no progress, no summary text.
    expect(names).not.toContain('message');
    const summary = all.at(-1) as Extract<Event, { event: 'summary' }>;
    expect(summary.summary.rows).toBe(80);
    // The --json summary on stdout is unchanged, and agrees with the event.
    expect(JSON.parse(result.stdout)).toEqual({ ...summary.summary, next_step: summary.next_step });
    // Limit changes are coalesced: never two of a kind within 200 ms of each other (the interval is 250 ms), but
    // for the last, written when every row is done.
    for (const kind of ['limit', 'pace'] as const) {
      const times = all.filter((event) => event.event === kind).map((event) => Date.parse(event.ts));
      for (let i = 1; i < times.length - 1; i++) expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(200);
    }
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('with --verbose, one request event per request; and each failed row is a row_failed event', async () => {
    const result = await publish(40, ['--log-format', 'json', '--verbose', '--max-attempts', '1']);
    const all = events(result.stderr);
    const requests = all.filter((event) => event.event === 'request');
    const summary = all.find((event) => event.event === 'summary');
    expect(requests.length).toBe(summary?.summary.requests);
    expect(requests.every((event) => event.path === '/v1/listings')).toBe(true);
    const failed = all.filter((event) => event.event === 'row_failed');
    expect(failed.length).toBe(summary?.summary.failed);
    if (failed.length > 0) expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('a usage error before the run is a message event too', async () => {
    const result = await runCli(['publish', 'missing.csv', '--log-format', 'json'], { cwd: tempDir(), env: publishEnv(sandbox.url, KEY) });
    expect(result.code).toBe(4);
    const all = events(result.stderr);
    expect(all.find((event) => event.event === 'message')).toMatchObject({ level: 'error', message: expect.stringContaining('missing.csv') as unknown });
  });
});

describe('--verbose and --debug (human)', () => {
  it('--verbose prints a line per request with method, path, status, latency and attempt, and the retries', async () => {
    const result = await publish(60, ['--verbose']);
    const lines = result.stderr.split('\n');
    const requests = lines.filter((line) => /^POST \/v1\/listings (\d{3}|[a-z]+) [\d.]+ms attempt=\d+ row=\d+/.test(line));
    expect(requests.length).toBeGreaterThanOrEqual(60);
    expect(requests.some((line) => / 201 .*attempt=1 /.test(line))).toBe(true);
    expect(lines.some((line) => /^retry row=\d+ attempt=\d+ in \d+ms: /.test(line))).toBe(true);
    expect(lines.some((line) => /^POST .* attempt=[2-9] /.test(line))).toBe(true);
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('--debug shows the settings with the key masked, timings, and the stack of an expected error; without it, no stack', async () => {
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    const ok = await runCli(['publish', catalog, '--no-journal', '--debug'], { cwd: dir, env: publishEnv(sandbox.url, KEY) });
    expect(ok.stderr).toMatch(/^debug settings .*api_key=sk_\*\*\*\*/m);
    expect(ok.stderr).toMatch(/^debug timing sent every row step_ms=\d+ total_ms=\d+/m);
    expect(ok.stdout + ok.stderr).not.toContain(KEY);
    const plain = await runCli(['publish', 'missing.csv'], { cwd: dir, env: publishEnv(sandbox.url, KEY) });
    expect(plain.code).toBe(4);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await runCli(['publish', 'missing.csv', '--debug'], { cwd: dir, env: publishEnv(sandbox.url, KEY) });
    expect(debug.code).toBe(4);
    expect(debug.stderr).toMatch(/^debug SourceError: .*missing\.csv/m);
    expect(debug.stderr).toMatch(/^caused by Error: ENOENT/m);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
