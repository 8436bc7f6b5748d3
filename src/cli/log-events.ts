import { jsonLine, RunLog, type RunLogOptions } from '../run/log-events.js';
import { err, out } from './output.js';
import { cliName } from './setting-flags.js';

/**
 * Where the run's log goes (stderr), and what the CLI adds to it: with `--log-format json`, every other line the run
 * writes to stderr (a notice, a warning, the final error) becomes a `message` event, so every line parses; the
 * progress line and the human summary are not printed. The lines are built by src/run/log-events.ts.
 */

// eslint-disable-next-line no-control-regex -- the colour sequences chalk writes
const SGR = /\u001b\[[0-9;]*m/g;

let capturing = false;
/** Set while the log writes its own line: the capture lets it pass. */
let emitting = false;

/**
 * `--log-format json`: from now on, whatever else is written to stderr (through `err()` or not) leaves as a
 * `message` event, so that every stderr line is JSON. GitHub workflow commands (`::error ...`) pass as they are
 * under `GITHUB_ACTIONS=true`, since the runner reads them there. Installed once, for the rest of the process (the
 * run's final error is printed after the command returns).
 */
export function captureStderrAsJson(): void {
  if (capturing) return;
  capturing = true;
  const write = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
  const github = process.env.GITHUB_ACTIONS === 'true';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (emitting || (github && text.startsWith('::'))) return write(chunk, ...rest);
    const message = text.replace(/\n$/, '').replace(SGR, '');
    if (message.trim() === '') return write('', ...rest);
    const level = /^(internal error|error|warning|notice|hint|stopped|interrupted)\b/.exec(message)?.[1] ?? 'info';
    return write(`${jsonLine('message', { level, message })}\n`, ...rest);
  });
}

/** One NDJSON line of the log on stderr, through err() (so masked), past the capture. */
function writeJson(line: string): void {
  emitting = true;
  try {
    err(line);
  } finally {
    emitting = false;
  }
}

/** The log of a run on the terminal: NDJSON and human lines on stderr, the summary as a result on stdout, flags named as flags. */
export function openRunLog(options: Omit<RunLogOptions, 'writeJson' | 'writeResult' | 'note'> & Partial<Pick<RunLogOptions, 'note'>>): RunLog {
  return new RunLog({ writeJson, writeResult: out, note: err, name: cliName, ...options });
}
