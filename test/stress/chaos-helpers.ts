import { once } from 'node:events';
import { createReadStream, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SandboxStats } from '../../src/sandbox/types.js';
import { spawnCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';

export { seededRandom } from '../../src/sandbox/random.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A port free now, below Linux's ephemeral range (32768+): while a sandbox is down between two lives, no outgoing
 * connection (of the CLI, of another test) can be given its port, so the next life can have it again.
 */
export async function freePort(random: () => number): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = 20_000 + Math.floor(random() * 12_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
  throw new Error('no free port found between 20000 and 32000');
}

/** What the sandbox answered over all its lives (each life's counts are read just before it is stopped). */
export interface SandboxTotals {
  requests: number;
  replayed: number;
  dropped: number;
  throttled: number;
  byStatus: Record<string, number>;
}

/**
 * A sandbox process that can be stopped (SIGTERM or SIGKILL) and started again on the same port and data file, so
 * that it keeps every listing and Idempotency-Key it created, as a real service does across a restart.
 */
export class RestartableSandbox {
  lives = 0;
  restarts = 0;
  readonly totals: SandboxTotals = { requests: 0, replayed: 0, dropped: 0, throttled: 0, byStatus: {} };
  #current: SandboxProcess | undefined;
  #last: SandboxStats | undefined;

  constructor(
    readonly port: number,
    readonly dataFile: string,
    private readonly argsFor: (life: number) => string[],
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get up(): boolean {
    return this.#current !== undefined;
  }

  async start(): Promise<void> {
    // A port just released may still be held briefly (a connection of the last life closing): try again.
    this.#current = await startSandboxProcess([...this.argsFor(this.lives), '--data', this.dataFile], { port: this.port, retryInUseMs: 15_000 });
    this.#last = undefined;
    this.lives++;
  }

  /** The counts now; undefined while the sandbox is down (or between lives). */
  async stats(): Promise<SandboxStats | undefined> {
    const current = this.#current;
    if (current === undefined) return undefined;
    try {
      const stats = await current.stats();
      if (this.#current === current) this.#last = stats;
      return stats;
    } catch {
      return undefined;
    }
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const current = this.#current;
    if (current === undefined) return;
    await this.stats();
    this.#current = undefined;
    this.#fold();
    if (signal === 'SIGTERM') {
      await current.stop();
    } else if (current.child.exitCode === null && current.child.signalCode === null) {
      const exited = once(current.child, 'exit');
      current.child.kill('SIGKILL');
      await exited;
    }
  }

  /** Stop it, wait `downMs` (requests are refused meanwhile), start it again on the same port and data. */
  async restart(signal: 'SIGTERM' | 'SIGKILL', downMs: number): Promise<void> {
    await this.stop(signal);
    await sleep(downMs);
    await this.start();
    this.restarts++;
  }

  #fold(): void {
    const last = this.#last;
    if (last === undefined) return;
    this.totals.requests += last.requests;
    this.totals.replayed += last.replayed;
    this.totals.dropped += last.dropped;
    this.totals.throttled += last.throttled;
    for (const [status, count] of Object.entries(last.by_status)) this.totals.byStatus[status] = (this.totals.byStatus[status] ?? 0) + count;
    this.#last = undefined;
  }
}

/** What a run under watch has done so far. */
export interface RunProgress {
  /** Listings the sandbox has created (over all its lives), when it could be asked. */
  created: number | undefined;
  /** Since the run started. */
  elapsedMs: number;
}

/** Something to do once during a run, when `when` first holds: kill the CLI, restart the sandbox. */
export interface RunEvent {
  name: string;
  when(progress: RunProgress): boolean;
  act(child: ReturnType<typeof spawnCli>): Promise<void> | void;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Names of the events that happened, in order. */
  happened: string[];
  ms: number;
}

/**
 * Run `listings ...args` against the sandbox, polling its counts every 50 ms to fire `events` in order (each once,
 * when its condition first holds). A run that has not ended within `timeoutMs` is a hang: killed and rejected.
 */
export async function watchedRun(
  args: string[],
  options: { cwd: string; sandbox: RestartableSandbox; events?: RunEvent[]; timeoutMs: number; onSpawn?: (pid: number) => void },
): Promise<RunResult> {
  const started = Date.now();
  const child = spawnCli(args, { cwd: options.cwd, env: { LISTINGS_BASE_URL: options.sandbox.url, LISTINGS_API_KEY: 'sandbox-key' } });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let ended: [number | null, NodeJS.Signals | null] | undefined;
  const closed = (once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>).then((end) => (ended = end));
  const pending = [...(options.events ?? [])];
  const happened: string[] = [];
  while (ended === undefined) {
    if (Date.now() - started > options.timeoutMs) {
      child.kill('SIGKILL');
      await closed;
      throw new Error(`hang: listings ${args.join(' ')} did not end within ${options.timeoutMs} ms (events: ${happened.join(', ')})\n--- stderr\n${stderr.slice(-4000)}`);
    }
    const next = pending[0];
    if (next !== undefined) {
      const stats = await options.sandbox.stats();
      if (ended !== undefined) break;
      if (next.when({ created: stats?.created, elapsedMs: Date.now() - started })) {
        pending.shift();
        happened.push(next.name);
        await next.act(child);
        continue;
      }
    }
    await Promise.race([sleep(50), closed]);
  }
  const [code, signal] = ended ?? (await closed);
  return { code, signal, stdout, stderr, happened, ms: Date.now() - started };
}

/** A row of an NDJSON report (the keys the checks read). */
export interface ReportRow {
  line: number | null;
  sku: string | null;
  outcome: string;
  reason: string | null;
  attempts: number;
}

/** The summary closing an NDJSON report (the keys the checks read). */
export interface ReportSummary {
  rows: number;
  published: number;
  failed: number;
  invalid: number;
  skipped: number;
  not_attempted: number;
  validated: number;
  complete: boolean;
  requests: number;
  throttled: number;
  overloaded: number;
  timeouts: number;
  errors_by_status: Record<string, number>;
}

export const OUTCOMES = ['published', 'failed', 'invalid', 'skipped', 'not_attempted', 'validated'] as const;

/** Read an NDJSON report line by line: `onRow` for each row; resolves with the closing summary. */
export async function readNdjsonReport(path: string, onRow: (row: ReportRow) => void): Promise<ReportSummary> {
  let summary: ReportSummary | undefined;
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (line === '') continue;
    if (summary !== undefined) throw new Error(`${path}: a line after the summary`);
    const value = JSON.parse(line) as ReportRow & { summary?: ReportSummary };
    if (value.summary !== undefined) summary = value.summary;
    else onRow(value);
  }
  if (summary === undefined) throw new Error(`${path} does not end with its summary`);
  return summary;
}

/** One line of the resume journal (rows only). */
export interface JournalLine {
  index: number;
  sku: string;
  hash: string;
  outcome: string;
}

/** Every row line of the one journal under `<cwd>/.listings`, and how many runs (header lines) it holds. */
export function readJournal(cwd: string): { runs: number; rows: JournalLine[]; torn: number } {
  const names = readdirSync(join(cwd, '.listings')).filter((name) => name.startsWith('journal-'));
  if (names.length !== 1) throw new Error(`expected one journal, found ${names.join(', ') || 'none'}`);
  let runs = 0;
  let torn = 0;
  const rows: JournalLine[] = [];
  for (const line of readFileSync(join(cwd, '.listings', names[0]!), 'utf8').split('\n')) {
    if (line === '') continue;
    let value: JournalLine & { journal?: number };
    try {
      value = JSON.parse(line) as JournalLine & { journal?: number };
    } catch {
      // the line a kill -9 tore; the next run starts on a fresh line
      torn++;
      continue;
    }
    if (value.journal !== undefined) runs++;
    else rows.push(value);
  }
  return { runs, rows, torn };
}

/** A creation the sandbox kept in its data file. */
export interface CreationLine {
  key?: string;
  digest: number;
  marketplace: string;
  sku: string;
}

export function readDataFile(path: string): CreationLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as CreationLine);
}

/** Resident set size now and at its peak (VmRSS, VmHWM) of a process, in MiB; undefined once it has exited. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (name: string): number | undefined => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match === null ? undefined : Number(match[1]);
  };
  const rss = kb('VmRSS');
  const peak = kb('VmHWM');
  return rss === undefined || peak === undefined ? undefined : { rssMb: rss / 1024, peakMb: peak / 1024 };
}
