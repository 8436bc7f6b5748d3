import { performance } from 'node:perf_hooks';
import type { EngineEvent, EngineObserver, PublishEnd } from '../publish/engine-types.js';
import type { RowOutcome } from '../publish/outcome.js';
import type { RunSummary } from '../report/summary.js';
import type { NextStep } from '../report/run-meta.js';
import type { RunVerdict } from './verdict.js';
import { formatLocation, libraryName, type NameSetting } from '../errors.js';
import { printable } from '../printable.js';
import { maskSecret, redact } from '../secrets.js';
import { redactSourceName } from '../secret-url.js';
import { VERSION } from '../version.js';

/**
 * The log of a run, in one of two formats:
 *
 * - `human` (the default): nothing beyond the usual progress and summary, unless `verbose` (a line per request,
 *   retry, limit and pace change) or `debug` (resolved settings with the key masked, and timings).
 * - `json`: one JSON object a line (NDJSON), each with `ts` (ISO time), `event` and its fields (LOG_EVENTS below is
 *   the schema). Limit and pace changes are coalesced to a few a second; row failures and retries are capped.
 *
 * This module builds the lines; where they go is the caller's (the CLI: stderr, see src/cli/log-events.ts). The
 * engine just reports {@link EngineEvent}s.
 */
export type LogFormat = 'human' | 'json';

/** The events of the json log and their fields (besides `ts` and `event`): the documented schema. */
export const LOG_EVENTS = {
  run_start: ['version', 'command', 'sources', 'profile', 'target', 'sandbox', 'marketplace', 'shape', 'dry_run', 'settings'],
  request: ['row', 'attempt', 'method', 'path', 'status', 'result', 'ms'],
  retry: ['row', 'attempt', 'delay_ms', 'reason'],
  limit: ['limit', 'previous', 'reason', 'changes'],
  pace: ['rate', 'previous', 'reason', 'hold_ms', 'changes'],
  breaker: ['state', 'previous'],
  row_failed: ['row', 'location', 'sku', 'outcome', 'status', 'attempts', 'reason', 'error'],
  capped: ['of', 'after'],
  run_stopped: ['kind', 'reason', 'hint', 'requests'],
  message: ['level', 'message'],
  debug: ['message', 'fields'],
  summary: ['end', 'next_step', 'not_logged', 'summary'],
  // stream's own: a status every interval, a stop asked for, the Kafka client's messages, a message dead-lettered,
  // where its admin endpoint (health, readiness, metrics) listens.
  stream_status: ['published', 'dead_lettered', 'rate', 'in_flight', 'limit', 'buffered', 'partitions'],
  stopping: ['abandon'],
  kafka: ['level', 'message'],
  dead_letter: ['location', 'partition', 'offset', 'sku', 'marketplace', 'outcome', 'reason', 'error', 'status'],
  admin: ['url'],
} as const;

export type LogEventName = keyof typeof LOG_EVENTS;

/** The events a command writes itself through {@link RunLog.event}: the rest are the run's, written by RunLog. */
export type CommandEventName = 'stream_status' | 'stopping' | 'kafka' | 'dead_letter' | 'admin';

/** Row failures and retries logged one by one, at most; past it one `capped` event, and the counts in `summary`. */
export const MAX_LOGGED = 1000;
/** The least time between two `limit` (or two `pace`) events: changes in between are folded into the next. */
export const COALESCE_MS = 250;

// What JSON.stringify leaves as it is but a terminal (or a log viewer) would obey: C1 controls, bidi controls, and
// the line separators that break some NDJSON readers.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * A source, location, SKU or message as the log names it: as every report does, with a control character written
 * `\uXXXX` in the value itself, so a reader that decodes the JSON (`jq -r`) is shown it, not obeyed.
 */
export function shown(text: string): string {
  return printable(text, { lines: false });
}

function shownSource(source: string): string {
  return shown(redactSourceName(source));
}

/** One NDJSON line: `ts`, `event`, then the fields; secrets masked, every control character escaped. */
export function jsonLine(event: LogEventName, fields: Record<string, unknown>, now: Date = new Date()): string {
  const text = JSON.stringify({ ts: now.toISOString(), event, ...fields });
  return redact(text.replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** What `run_start` says of the run: never the key. */
export interface RunStart {
  command: 'publish' | 'validate' | 'stream' | 'enqueue';
  sources: string[];
  profile: string;
  /** The host the rows go to (`host:port`), undefined for a dry run. */
  target: string | undefined;
  sandbox: boolean;
  marketplace: string | undefined;
  shape: string | undefined;
  dryRun: boolean;
  settings: Record<string, unknown>;
}

export interface RunLogOptions {
  format: LogFormat;
  verbose: boolean;
  debug: boolean;
  /** The request path, for request lines (`/v1/listings`); a function when it is known only once the run has started. */
  path: string | (() => string);
  /** Where a human line goes (the CLI: stderr, above the progress line). */
  note: (line: string) => void;
  /** Writes one NDJSON line (masked already). */
  writeJson: (line: string) => void;
  /** Where the summary goes when asked for as a result (the CLI: stdout, when asked for JSON). */
  writeResult: (line: string) => void;
  /** How a text names a setting (`maxErrors`): by its option name unless given; the CLI passes its flags. */
  name?: NameSetting;
  /** Monotonic ms. */
  now?: () => number;
  coalesceMs?: number;
  maxLogged?: number;
}

type Coalesced = Extract<EngineEvent, { type: 'limit' | 'pace' }>;

interface Pending {
  event: Coalesced;
  /** The value before the first change folded in. */
  previous: number | undefined;
  changes: number;
}

/**
 * The log of one run: engine events and run milestones in, lines out (NDJSON, or human lines when verbose or
 * debug). `observer` is undefined when nothing the engine says would be logged, so the engine builds no event.
 */
export class RunLog {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly debugOn: boolean;
  readonly observer: EngineObserver | undefined;
  readonly #options: RunLogOptions;
  readonly #now: () => number;
  readonly #started: number;
  readonly #coalesceMs: number;
  readonly #maxLogged: number;
  readonly #lastAt = { limit: -Infinity, pace: -Infinity };
  readonly #pending: { limit?: Pending; pace?: Pending } = {};
  readonly #timers: { limit?: ReturnType<typeof setTimeout>; pace?: ReturnType<typeof setTimeout> } = {};
  readonly #logged = { row_failed: 0, retry: 0 };
  readonly #notLogged = { row_failed: 0, retry: 0 };
  #lastMark: number;
  #outputStop: { kind: 'output_failed'; reason: 'disk_full' | 'write_failed'; output: string; path: string } | undefined;

  constructor(options: RunLogOptions) {
    this.#options = options;
    this.json = options.format === 'json';
    this.verbose = options.verbose;
    this.debugOn = options.debug;
    this.#now = options.now ?? (() => performance.now());
    this.#started = this.#now();
    this.#lastMark = this.#started;
    this.#coalesceMs = options.coalesceMs ?? COALESCE_MS;
    this.#maxLogged = options.maxLogged ?? MAX_LOGGED;
    this.observer = this.json || this.verbose ? (event) => this.#engineEvent(event) : undefined;
  }

  /** The run's metadata: the first event. */
  start(start: RunStart): void {
    if (this.json) {
      this.#emit('run_start', {
        version: VERSION,
        command: start.command,
        sources: start.sources.map(shownSource),
        profile: start.profile,
        target: start.target ?? null,
        sandbox: start.sandbox,
        marketplace: start.marketplace ?? null,
        shape: start.shape ?? null,
        dry_run: start.dryRun,
        settings: start.settings,
      });
    }
    if (this.debugOn) this.debug('run', { version: VERSION, sources: start.sources.map(redactSourceName), profile: start.profile, target: start.target ?? null, ...start.settings });
  }

  /** Debug: the settings in effect and where each came from; the key masked. */
  settings(values: object, sources: object, apiKey: string | undefined): void {
    if (!this.debugOn) return;
    const fields: Record<string, unknown> = {};
    const from = sources as Record<string, unknown>;
    for (const [key, value] of Object.entries(values) as [string, unknown][]) {
      if (value === undefined) continue;
      const shown = key === 'api_key' && typeof value === 'string' ? maskSecret(value) : value;
      fields[key] = from[key] === undefined ? shown : `${typeof shown === 'string' ? shown : JSON.stringify(shown)} (from ${describeSource(from[key])})`;
    }
    fields.api_key = apiKey === undefined ? 'not set' : maskSecret(apiKey);
    this.debug('settings', fields);
  }

  /** Debug: how long since the last mark, and since the start. */
  mark(milestone: string): void {
    if (!this.debugOn) return;
    const now = this.#now();
    this.debug(`timing ${milestone}`, { step_ms: Math.round(now - this.#lastMark), total_ms: Math.round(now - this.#started) });
    this.#lastMark = now;
  }

  debug(message: string, fields: Record<string, unknown> = {}): void {
    if (!this.debugOn) return;
    if (this.json) this.#emit('debug', { message, fields });
    else {
      const text = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
      this.#human(`debug ${message}${text === '' ? '' : ` ${printable(text, { lines: false })}`}`);
    }
  }

  /** A command's own event (json only), in the same envelope as the run's. */
  event(event: CommandEventName, fields: Record<string, unknown>): void {
    if (this.json) this.#emit(event, fields);
  }

  /** Each outcome of the run: failed and invalid rows become `row_failed` events (json), up to the cap. */
  outcome(outcome: RowOutcome): void {
    if (!this.json || (outcome.outcome !== 'failed' && outcome.outcome !== 'invalid')) return;
    if (!this.#count('row_failed')) return;
    this.#emit('row_failed', {
      row: outcome.index + 1,
      location: shown(formatLocation(outcome.location)),
      sku: outcome.sku === undefined ? null : shown(outcome.sku),
      outcome: outcome.outcome,
      status: outcome.httpStatus ?? null,
      attempts: outcome.attempts,
      reason: outcome.reason === undefined ? null : shown(outcome.reason),
      error: outcome.error === undefined ? null : shown(outcome.error),
    });
  }

  /**
   * An output could not be written and the run was stopped for it: its stop (which the engine sees as an interrupt)
   * is told as `output_failed`, with `disk_full` when it was (ENOSPC, EDQUOT).
   */
  outputFailed(output: string, path: string, error: Error): void {
    const code = (error as NodeJS.ErrnoException).code;
    this.#outputStop ??= { kind: 'output_failed', reason: code === 'ENOSPC' || code === 'EDQUOT' ? 'disk_full' : 'write_failed', output, path };
  }

  /**
   * The last event (json): the summary as it is printed as a result, why the run ended with its verdict (`exit_code`,
   * `why`), and what was not logged. With `stdout`, the summary as the result too.
   */
  summary(summary: RunSummary, end: PublishEnd, stdout: boolean, verdict: RunVerdict, nextStep?: NextStep | null): void {
    const output = end.kind === 'interrupted' ? this.#outputStop : undefined;
    const how = output !== undefined ? output : end.kind === 'systemic' ? { kind: end.kind, reason: end.reason } : end.kind === 'max-errors' ? { kind: end.kind, failed: end.failed } : { kind: end.kind };
    this.finish(how, summary, verdict, stdout, nextStep);
  }

  /**
   * The last event (json) of any run: how it ended (`how`, a `kind` and its details) with the verdict, what was not
   * logged, and the command's summary; with `stdout`, the summary as the result too. A command that gives a next step
   * (src/run/next-step.ts) has it as `next_step` in both: `{ command, why }`, or null (the event's is null for a
   * command that gives none).
   */
  finish(how: { kind: string } & Record<string, unknown>, summary: object, verdict: RunVerdict, stdout: boolean, nextStep?: NextStep | null): void {
    this.flush();
    if (this.json) this.#emit('summary', { end: { ...how, exit_code: verdict.exitCode, why: verdict.why }, next_step: nextStep ?? null, not_logged: { ...this.#notLogged }, summary });
    if (stdout) this.#options.writeResult(JSON.stringify(nextStep === undefined ? summary : { ...summary, next_step: nextStep }));
  }

  /** Write what is held back (coalesced changes) and stop the timer. */
  flush(): void {
    for (const kind of ['limit', 'pace'] as const) {
      clearTimeout(this.#timers[kind]);
      delete this.#timers[kind];
    }
    this.#flushPending('limit');
    this.#flushPending('pace');
  }

  /** Every row has its outcome: held-back changes are written, and (debug) the time it took. */
  runDone(): void {
    this.flush();
    this.mark('sent every row');
  }

  close(): void {
    this.flush();
  }

  #engineEvent(event: EngineEvent): void {
    switch (event.type) {
      case 'answer': {
        if (!this.verbose) return;
        const path = typeof this.#options.path === 'string' ? this.#options.path : this.#options.path();
        if (this.json) {
          this.#emit('request', { row: event.index + 1, attempt: event.attempt, method: 'POST', path, status: event.status ?? null, result: event.kind, ms: round(event.ms) });
        } else {
          this.#human(`POST ${path} ${event.status ?? event.kind} ${round(event.ms)}ms attempt=${event.attempt} row=${event.index + 1}${event.status !== undefined && event.kind !== 'ok' ? ` (${event.kind})` : ''}`);
        }
        return;
      }
      case 'retry':
        if (this.json) {
          if (this.verbose || this.#count('retry')) this.#emit('retry', { row: event.index + 1, attempt: event.attempt, delay_ms: event.delayMs, reason: event.reason });
        } else {
          this.#human(`retry row=${event.index + 1} attempt=${event.attempt} in ${event.delayMs}ms: ${event.reason}`);
        }
        return;
      case 'limit':
      case 'pace':
        this.#coalesce(event);
        return;
      case 'breaker':
        if (this.json) this.#emit('breaker', { state: event.state, previous: event.previous });
        else this.#human(`breaker ${event.previous} -> ${event.state}`);
        return;
      case 'stopped': {
        const { end } = event;
        const output = end.kind === 'interrupted' ? this.#outputStop : undefined;
        if (output !== undefined) {
          this.flush();
          if (this.json) this.#emit('run_stopped', { ...output, hint: null, requests: null });
          else this.#human(`stopped: ${output.kind}: ${output.reason} (the ${output.output} ${printable(output.path)})`);
          return;
        }
        const fields = {
          kind: end.kind,
          reason: end.kind === 'systemic' ? end.reason : end.kind === 'max-errors' ? `${end.failed} rows failed (${(this.#options.name ?? libraryName)('maxErrors')})` : end.kind === 'source' ? 'the source could not be read' : 'interrupted',
          hint: end.kind === 'systemic' ? (end.hint ?? null) : null,
          requests: end.kind === 'systemic' ? end.requests : null,
        };
        this.flush();
        if (this.json) this.#emit('run_stopped', fields);
        else this.#human(`stopped: ${end.kind}: ${printable(fields.reason)}`);
        return;
      }
      default:
    }
  }

  /** A limit or pace change: at once when the last one of its kind is old enough, else folded into the next. */
  #coalesce(event: Coalesced): void {
    const kind = event.type;
    const now = this.#now();
    if (event.reason === 'noise') {
      // Cuts undone is a finding about the service, not a step of the pace: never folded into the next change.
      this.#flushPending(kind);
      this.#lastAt[kind] = now;
      this.#writeChange(event, event.previous, 1);
      return;
    }
    const pending = this.#pending[kind];
    if (pending !== undefined) {
      pending.event = event;
      pending.changes++;
      return;
    }
    if (now - this.#lastAt[kind] >= this.#coalesceMs) {
      this.#lastAt[kind] = now;
      this.#writeChange(event, event.previous, 1);
      return;
    }
    this.#pending[kind] = { event, previous: event.previous, changes: 1 };
    // Written when the interval since the last one of its kind is over (or at the run's end, whichever is first).
    this.#timers[kind] ??= setTimeout(() => {
      delete this.#timers[kind];
      this.#flushPending(kind);
    }, Math.max(1, Math.ceil(this.#lastAt[kind] + this.#coalesceMs - now)));
    this.#timers[kind].unref();
  }

  #flushPending(kind: 'limit' | 'pace'): void {
    const pending = this.#pending[kind];
    if (pending === undefined) return;
    delete this.#pending[kind];
    this.#lastAt[kind] = this.#now();
    this.#writeChange(pending.event, pending.previous, pending.changes);
  }

  #writeChange(event: Coalesced, previous: number | undefined, changes: number): void {
    if (event.type === 'limit') {
      if (this.json) this.#emit('limit', { limit: event.limit, previous: previous ?? null, reason: event.reason, changes });
      else this.#human(`limit ${previous ?? '-'} -> ${event.limit} (${event.reason}${changes > 1 ? `, ${changes} changes` : ''})`);
      return;
    }
    const rate = event.rate === undefined ? null : round(event.rate);
    if (this.json) this.#emit('pace', { rate, previous: previous === undefined ? null : round(previous), reason: event.reason, hold_ms: event.holdMs ?? null, changes });
    else this.#human(`pace ${previous === undefined ? 'none' : `${round(previous)}/s`} -> ${rate === null ? 'none' : `${rate}/s`} (${event.reason}${event.holdMs === undefined ? '' : `, held ${event.holdMs}ms`}${changes > 1 ? `, ${changes} changes` : ''})`);
  }

  /** True while `kind` is under its cap; the first time over, one `capped` event. */
  #count(kind: 'row_failed' | 'retry'): boolean {
    if (this.#logged[kind] < this.#maxLogged) {
      this.#logged[kind]++;
      return true;
    }
    if (this.#notLogged[kind]++ === 0) this.#emit('capped', { of: kind, after: this.#maxLogged });
    return false;
  }

  #emit(event: LogEventName, fields: Record<string, unknown>): void {
    this.#options.writeJson(jsonLine(event, fields));
  }

  #human(line: string): void {
    this.#options.note(line);
  }
}

function describeSource(source: unknown): string {
  if (typeof source === 'string') return source;
  return JSON.stringify(source) ?? 'unknown';
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
