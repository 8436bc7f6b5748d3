import { describe, expect, it } from 'vitest';
import { RunLog, jsonLine, LOG_EVENTS } from '../../../src/run/log-events.js';
import { registerSecret } from '../../../src/secrets.js';
import type { RowOutcome } from '../../../src/publish/outcome.js';
import type { RunSummary } from '../../../src/report/summary.js';

/** A log that writes into an array, on a clock the test moves. */
function logOf(options: { format?: 'human' | 'json'; verbose?: boolean; debug?: boolean; maxLogged?: number } = {}) {
  const lines: string[] = [];
  let now = 0;
  const log = new RunLog({
    format: options.format ?? 'json',
    verbose: options.verbose ?? false,
    debug: options.debug ?? false,
    path: '/v1/listings',
    now: () => now,
    writeJson: (line) => lines.push(line),
    note: (line) => lines.push(line),
    writeResult: (line) => lines.push(line),
    ...(options.maxLogged === undefined ? {} : { maxLogged: options.maxLogged }),
  });
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, lines, parsed, advance: (ms: number) => (now += ms) };
}

function failed(index: number): RowOutcome {
  return { index, location: { source: 'c.csv', line: index + 2 }, sku: `S${index}`, outcome: 'failed', httpStatus: 500, attempts: 5, durationMs: 3, error: 'HTTP 500' };
}

describe('RunLog', () => {
  it('asks the engine for no events when it would log none (human, not verbose)', () => {
    expect(logOf({ format: 'human' }).log.observer).toBeUndefined();
    expect(logOf({ format: 'human', verbose: true }).log.observer).toBeTypeOf('function');
    expect(logOf({ format: 'json' }).log.observer).toBeTypeOf('function');
  });

  it('coalesces limit changes: the first at once, the rest of the interval folded into one', () => {
    const { log, parsed, advance } = logOf();
    for (let limit = 5; limit <= 50; limit++) {
      log.observer?.({ type: 'limit', limit, previous: limit - 1, reason: 'ok' });
      advance(5);
    }
    log.flush();
    const events = parsed();
    expect(events.length).toBeLessThanOrEqual(2);
    expect(events[0]).toMatchObject({ event: 'limit', limit: 5, previous: 4, changes: 1 });
    expect(events.at(-1)).toMatchObject({ event: 'limit', limit: 50, previous: 5, changes: 45 });
  });

  it('answers are logged only with --verbose; retries always (json), capped with one capped event', () => {
    const { log, parsed } = logOf({ maxLogged: 3 });
    log.observer?.({ type: 'answer', index: 0, attempt: 1, status: 201, kind: 'ok', ms: 3 });
    for (let i = 0; i < 10; i++) log.observer?.({ type: 'retry', index: i, attempt: 2, delayMs: 100, reason: 'throttled (429)' });
    for (let i = 0; i < 10; i++) log.outcome(failed(i));
    log.summary({ rows: 10 } as RunSummary, { kind: 'completed' }, false, { kind: 'rows-failed', exitCode: 1, why: '10 rows failed' });
    const events = parsed();
    expect(events.filter((e) => e.event === 'request')).toHaveLength(0);
    expect(events.filter((e) => e.event === 'retry')).toHaveLength(3);
    expect(events.filter((e) => e.event === 'row_failed')).toHaveLength(3);
    expect(events.filter((e) => e.event === 'capped').map((e) => e.of)).toEqual(['retry', 'row_failed']);
    expect(events.at(-1)).toMatchObject({ event: 'summary', not_logged: { retry: 7, row_failed: 7 }, end: { kind: 'completed', exit_code: 1, why: '10 rows failed' } });
    expect(events[4]).toMatchObject({ event: 'row_failed', row: 1, location: 'c.csv:2', sku: 'S0', status: 500 });
  });

  it('human --verbose lines name method, path, status, latency and attempt', () => {
    const { log, lines } = logOf({ format: 'human', verbose: true });
    log.observer?.({ type: 'answer', index: 6, attempt: 2, status: 503, kind: 'overloaded', ms: 12.34 });
    log.observer?.({ type: 'answer', index: 7, attempt: 1, status: undefined, kind: 'timeout', ms: 30000 });
    log.observer?.({ type: 'retry', index: 6, attempt: 3, delayMs: 240, reason: 'overloaded (503)' });
    expect(lines).toEqual(['POST /v1/listings 503 12.3ms attempt=2 row=7 (overloaded)', 'POST /v1/listings timeout 30000ms attempt=1 row=8', 'retry row=7 attempt=3 in 240ms: overloaded (503)']);
  });

  it('every event name and field is documented in LOG_EVENTS', () => {
    const { log, parsed } = logOf({ verbose: true, debug: true });
    log.start({ command: 'publish', sources: ['c.csv'], profile: 'default', target: 'api.example.com', sandbox: false, marketplace: 'EBAY_US', shape: 'flat', dryRun: false, settings: {} });
    log.observer?.({ type: 'answer', index: 0, attempt: 1, status: 201, kind: 'ok', ms: 3 });
    log.observer?.({ type: 'pace', rate: 40, previous: undefined, reason: 'throttled' });
    log.observer?.({ type: 'breaker', state: 'open', previous: 'closed' });
    log.observer?.({ type: 'stopped', end: { kind: 'systemic', error: new Error('x'), requests: 3, reason: 'cannot connect', hint: 'check it' } });
    log.outcome(failed(0));
    log.summary({ rows: 1 } as RunSummary, { kind: 'systemic', error: new Error('x'), requests: 3, reason: 'cannot connect' }, false, { kind: 'service', exitCode: 3, why: 'the service could not be used' });
    for (const event of parsed()) {
      const name = event.event as keyof typeof LOG_EVENTS;
      expect(LOG_EVENTS[name], String(name)).toBeDefined();
      expect(Object.keys(event).filter((key) => key !== 'ts' && key !== 'event').sort()).toEqual([...LOG_EVENTS[name]].sort());
      expect(new Date(event.ts as string).toISOString()).toBe(event.ts);
    }
  });
});

describe('jsonLine', () => {
  it('masks registered secrets and escapes what a terminal would obey', () => {
    registerSecret('sk_live_UNIT_secret_42');
    const line = jsonLine('message', { level: 'error', message: 'key sk_live_UNIT_secret_42 \u001b[2J \u009b bidi \u202e end' });
    expect(line).not.toContain('sk_live_UNIT_secret_42');
    // eslint-disable-next-line no-control-regex -- control characters are what must not be there
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect((JSON.parse(line) as { message: string }).message).toBe('key **** \u001b[2J \u009b bidi \u202e end');
  });
});

describe('the log names a source and a SKU as the reports do: a control character written \\uXXXX in the value', () => {
  // Before: only the JSON encoding escaped them, so `jq -r .location` of a row_failed event printed a raw ESC ] 52
  // (a clipboard write) that a file name or a catalog's SKU carried; the reports and the terminal showed it escaped.
  it('run_start and row_failed', () => {
    const { log, parsed } = logOf();
    const source = 'x\u001b]52;c;eA==\u0007\u202e.csv';
    log.start({ command: 'publish', sources: [source], profile: 'default', target: 'api.example.com', sandbox: false, marketplace: 'EBAY_US', shape: 'flat', dryRun: false, settings: {} });
    log.outcome({ ...failed(0), location: { source, line: 2 }, sku: 'S\u001b[2J', error: 'said \u001b[8mhidden' });
    const [start, row] = parsed();
    expect(start).toMatchObject({ event: 'run_start', sources: ['x\\u001b]52;c;eA==\\u0007\\u202e.csv'] });
    expect(row).toMatchObject({ event: 'row_failed', location: 'x\\u001b]52;c;eA==\\u0007\\u202e.csv:2', sku: 'S\\u001b[2J', error: 'said \\u001b[8mhidden' });
  });
});
