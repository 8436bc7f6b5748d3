import { UsageError } from '../../errors.js';
import { startListener, replayRecording, listenOptionIssues, redactPath, LISTEN_DEFAULTS } from '../../listen/index.js';
import type { CallbackEvent, CallbackSummary, ForwardResult, ListenEvent, ListenOptions, ReplayEvent } from '../../listen/index.js';
import { eventRecords, replayRecord } from '../../listen/event-records.js';
import { limitsText, receivingAt, REJECT_REASONS, stoppedText } from '../../listen/listener-text.js';
import { untilSignal } from '../signals.js';
import { printable } from '../../printable.js';
import { stringifyJson } from '../../json-number.js';
import { registerSecret } from '../../secrets.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { flagOfKey, optionsOfFlags } from '../flags.js';
import { err, out, paint, paintOut } from '../output.js';
import { CallbackScreen, notShownText } from './listen-screen.js';

/** The raw flags of `listings listen`, as commander collects them. */
export interface ListenFlags {
  port?: number;
  host?: string;
  path?: string;
  forwardTo?: string;
  json?: boolean;
  record?: string;
  secretEnv?: string;
  signatureHeader?: string;
  tolerance?: number;
  maxBody?: number;
  maxConnections?: number;
  requestTimeout?: number;
  allowUnsigned?: boolean;
  replay?: string;
}

/** The most of a body shown on the terminal, as text or pretty-printed JSON; the recording keeps it whole. */
const MAX_SHOWN = 4_096;

/** The warnings a replay shows, each located (`file:line`); those past it are counted in one line. */
export const MAX_REPLAY_WARNINGS = 20;

/** Flags -> listener options; every bad value is a UsageError naming its flag. The secret is read and masked here. */
export function listenOptionsFromFlags(flags: ListenFlags, env: NodeJS.ProcessEnv = process.env): ListenOptions {
  // Each option of the table with a `key` (src/options/server-flags.ts), but the secret: --secret-env names where it is.
  const options = optionsOfFlags('listen', flags) as ListenOptions;
  delete options.secret;
  if (flags.secretEnv !== undefined) {
    const secret = env[flags.secretEnv];
    if (secret === undefined || secret === '') {
      throw new UsageError(`--secret-env ${flags.secretEnv}: the environment variable ${flags.secretEnv} is not set`, { hint: `export ${flags.secretEnv}=<the webhook secret>, or leave out --secret-env to accept unsigned callbacks` });
    }
    registerSecret(secret);
    options.secret = secret;
  }
  const issues = listenOptionIssues(options);
  if (issues.length > 0) {
    const lines = issues.map((issue) => `${flagOfKey('listen', issue.path, flags)?.flag ?? issue.path} ${issue.message}`);
    const exposed = options.host !== undefined && options.host.trim() !== '' && issues.some((issue) => issue.path === 'host');
    const hint = exposed ? 'give --secret-env NAME to check signatures there, keep the default --host 127.0.0.1, or add --allow-unsigned to receive unsigned callbacks from anyone anyway' : undefined;
    throw new UsageError(lines.length === 1 ? (lines[0] ?? '') : `invalid listen options:\n  ${lines.join('\n  ')}`, hint === undefined ? {} : { hint });
  }
  return options;
}

function clock(date: Date): string {
  return `${date.toTimeString().slice(0, 8)}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** Outside text on one line: every control character (tab and line breaks too) escaped. */
const oneLine = (text: string): string => printable(text, { lines: false });

function headline(event: CallbackEvent): string {
  const { summary, callback } = event;
  const where = `${callback.method} ${oneLine(redactPath(callback.path))}`;
  const parts = [paintOut.dim(clock(callback.receivedAt)), paintOut.dim(`#${event.seq}`)];
  if (event.outcome === 'rejected') {
    parts.push(paintOut.red(`rejected ${event.status}`), event.reason === undefined ? '' : REJECT_REASONS[event.reason], paintOut.dim(where));
    return parts.filter((part) => part !== '').join('  ');
  }
  if (event.outcome === 'duplicate') parts.push(paintOut.yellow('duplicate'));
  parts.push(paintOut.bold(oneLine(summary.kind ?? where)));
  if (summary.sku !== undefined) parts.push(`sku ${oneLine(summary.sku)}`);
  if (summary.status !== undefined) parts.push(`status ${oneLine(summary.status)}`);
  const context = [summary.id === undefined ? undefined : `id ${oneLine(summary.id)}`, summary.kind === undefined ? undefined : where].filter((part) => part !== undefined);
  if (context.length > 0) parts.push(paintOut.dim(`(${context.join(', ')})`));
  if (event.outcome === 'duplicate') parts.push(paintOut.dim('answered 200, not kept again'));
  return parts.join('  ');
}

/**
 * The body as shown: JSON pretty-printed or text, escaped and capped (a megabyte of `[0,0,...]` would be half a
 * million lines, each a synchronous write to a terminal while no callback is answered), bytes counted.
 */
function bodyLines(summary: CallbackSummary, size: number): string[] {
  if (size === 0) return [];
  let text: string;
  if (summary.json !== undefined) text = stringifyJson(summary.json, 2);
  else if (summary.text !== undefined) text = summary.text;
  else return [paintOut.dim(`(${size} bytes, not UTF-8 text)`)];
  if (text.length > MAX_SHOWN) text = `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)`;
  return printable(text).split(/\r?\n|\r/).map((line) => `  ${line}`);
}

function forwardText(seq: number, result: ForwardResult): string {
  if ('error' in result) return `  ${paintOut.red('✖')} #${seq} forward failed: ${oneLine(result.error)}`;
  const status = result.ok ? paintOut.green(String(result.status)) : paintOut.red(String(result.status));
  return `  ${paintOut.dim('→')} #${seq} forwarded: ${status} ${paintOut.dim(`(${result.ms} ms)`)}`;
}

/** Prints the listener's events: text for a person, or NDJSON (a forwarded callback's line waits for its forward). */
function printer(json: boolean): { onEvent: (event: ListenEvent) => void; recordFailed: () => boolean; screen: CallbackScreen | undefined } {
  const records = eventRecords();
  const screen = json ? undefined : new CallbackScreen();
  let recordFailed = false;
  const onEvent = (event: ListenEvent): void => {
    if (event.type === 'record_error') {
      recordFailed = true;
      err(`${paint.red('error')} the recording cannot be written, recording stopped: ${printable(event.message)}`);
      return;
    }
    if (json) {
      for (const line of records(event)) out(stringifyJson(line));
      return;
    }
    if (event.type === 'forward') return screen?.show([forwardText(event.seq, event.result)]);
    screen?.show([headline(event), ...(event.outcome === 'accepted' ? bodyLines(event.summary, event.callback.body.length) : [])]);
  };
  return { onEvent, recordFailed: () => recordFailed, screen };
}

async function runReplay(file: string, flags: ListenFlags): Promise<void> {
  if (flags.forwardTo === undefined) throw new UsageError('--replay needs --forward-to: the URL to send the recorded callbacks to');
  const { forwardTo } = listenOptionsFromFlags({ forwardTo: flags.forwardTo });
  const url = forwardTo ?? flags.forwardTo;
  // A garbage or binary file is thousands of bad lines: the first warnings are shown, located; the rest are counted.
  const unshown = { lines: 0, headers: 0 };
  let warned = 0;
  const warn = (kind: keyof typeof unshown, text: () => string): void => {
    if (warned >= MAX_REPLAY_WARNINGS) {
      unshown[kind]++;
      return;
    }
    warned++;
    err(`${paint.yellow('warning')} ${text()}`);
  };
  const stats = await replayRecording(file, url, (event: ReplayEvent) => {
    const at = `${file}:${event.line}`;
    if (event.type === 'skipped') {
      warn('lines', () => `${printable(at)}: not sent: ${oneLine(event.reason)}`);
      return;
    }
    const { record, result, dropped } = event;
    for (const header of dropped) warn('headers', () => `${printable(at)}: header ${oneLine(JSON.stringify(header.name))} not sent: ${header.reason}`);
    if (flags.json) {
      out(JSON.stringify(replayRecord(event)));
      return;
    }
    const what = `${paintOut.dim(printable(at))}  ${record.method} ${oneLine(record.path)}`;
    out(`${what}  ${'error' in result ? paintOut.red(`✖ ${oneLine(result.error)}`) : result.ok ? paintOut.green(String(result.status)) : paintOut.red(String(result.status))}`);
  });
  if (unshown.lines + unshown.headers > 0) {
    const count = (n: number, what: string, done: string): string => (n === 0 ? '' : `${n} more ${what}${n === 1 ? '' : 's'} ${done}`);
    const more = [count(unshown.lines, 'line', 'skipped'), count(unshown.headers, 'header', 'not sent')].filter((part) => part !== '');
    err(`${paint.yellow('warning')} ${more.join(' and ')}, not shown (only the first ${MAX_REPLAY_WARNINGS} warnings are)`);
  }
  const skipped = stats.skipped > 0 ? `, ${stats.skipped} lines skipped` : '';
  err(`replayed ${stats.sent} callbacks to ${printable(url)}: ${stats.ok} answered 2xx, ${stats.failed} failed${skipped}`);
  if (stats.failed > 0 || stats.skipped > 0) throw new ExitError(EXIT.rowsFailed);
}

export async function runListen(flags: ListenFlags): Promise<void> {
  if (flags.replay !== undefined) return runReplay(flags.replay, flags);
  const options = listenOptionsFromFlags(flags);
  const print = printer(flags.json === true);
  const listener = await startListener({ ...options, onEvent: print.onEvent });
  err(`${paint.bold('listings listen')} receiving callbacks at ${receivingAt(listener, options.path ?? LISTEN_DEFAULTS.path)}`);
  if (options.secret === undefined && !listener.loopback) {
    err(`${paint.yellow('warning')} signatures are not checked on ${listener.address.host}, an address other machines can reach: anyone who reaches port ${listener.address.port} can send callbacks${options.forwardTo === undefined ? '' : ', and they are forwarded'}`);
  }
  if (options.forwardTo !== undefined) err(`  forwarding to ${printable(options.forwardTo)}`);
  if (options.recordFile !== undefined) err(`  recording to ${printable(options.recordFile)}`);
  if (options.secret !== undefined) {
    err(`  verifying the ${options.signatureHeader ?? LISTEN_DEFAULTS.signatureHeader} header with the secret in $${flags.secretEnv ?? ''} (tolerance ${options.toleranceSeconds ?? LISTEN_DEFAULTS.toleranceSeconds} s)`);
  } else err(paint.dim('  signatures not checked (--secret-env NAME to check them)'));
  err(paint.dim(`  ${limitsText(options)}`));
  err(paint.dim('  stop with Ctrl-C'));
  await untilSignal(true);
  await listener.close();
  const { screen } = print;
  if (screen !== undefined && !(await screen.flushed())) {
    // The lines still waiting would keep the process alive until the reader goes away: it ends once the command has.
    setTimeout(() => process.exit(), 500).unref();
  }
  if (screen !== undefined && screen.dropped > 0) err(`${paint.yellow('warning')} ${notShownText(screen.dropped)}`);
  err(stoppedText(listener.stats(), options.forwardTo !== undefined));
  if (print.recordFailed()) throw new ExitError(EXIT.output);
}
