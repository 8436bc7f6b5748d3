import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { describeFaults, sandboxOptionsFromText, type SandboxOptionTexts } from '../../sandbox/option-text.js';
import { sandboxOptionIssues, SANDBOX_DEFAULTS } from '../../sandbox/options.js';
import type { SandboxOptions, SandboxRequestEvent } from '../../sandbox/types.js';
import { err, out, paint } from '../output.js';
import { GROUP } from '../help.js';

/** The raw flags of `listings sandbox`, as commander collects them. */
export interface SandboxFlags {
  port?: string;
  host?: string;
  apiKey?: string;
  savedDefaults?: boolean;
  latency?: string;
  failRate?: string;
  failStatus?: string;
  rateLimit?: string;
  retryAfter?: string;
  capacity?: string;
  queue?: string;
  dropRate?: string;
  spikeRate?: string;
  spikeMs?: string;
  seed?: string;
  maxBodyBytes?: string;
  data?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  webhookAttempts?: string;
  webhookBackoffMs?: string;
  verbose?: boolean;
}

// Flag -> library option: the same name but for these two (a flag's name is its attribute's: failRate -> --fail-rate).
// src/sandbox reads the values, and sandboxOptionIssues checks their ranges once.
const RENAMED: Partial<Record<keyof SandboxFlags, keyof SandboxOptionTexts>> = { retryAfter: 'retryAfterSeconds', data: 'dataFile' };
const FLAG_OF_OPTION = new Map(Object.entries(RENAMED).map(([flag, option]) => [option as string, flag as keyof SandboxFlags]));
const flagOf = (option: string): keyof SandboxFlags => FLAG_OF_OPTION.get(option) ?? (option as keyof SandboxFlags);

/** Turn the flags into library options; every bad value is a UsageError naming its flag. */
export function sandboxOptionsFromFlags(flags: SandboxFlags): SandboxOptions {
  const { verbose: _verbose, ...given } = flags;
  const texts = Object.fromEntries(Object.entries(given).map(([flag, value]) => [RENAMED[flag as keyof SandboxFlags] ?? flag, value]));
  const options = sandboxOptionsFromText(texts);
  const issues = sandboxOptionIssues(options);
  if (issues.length > 0) {
    const lines = issues.map((issue) => {
      const flag = flagOf(issue.path);
      const raw = flags[flag];
      const shown = flag === 'apiKey' || flag === 'webhookSecret' || typeof raw !== 'string' ? '' : ` (got ${JSON.stringify(raw)})`;
      return `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${issue.message}${shown}`;
    });
    throw new UsageError(lines.length === 1 ? (lines[0] ?? '') : `invalid sandbox options:\n  ${lines.join('\n  ')}`);
  }
  return options;
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

function logRequest(event: SandboxRequestEvent): void {
  const status = event.status === 'dropped' ? paint.yellow('dropped') : event.status < 300 ? paint.green(String(event.status)) : paint.red(String(event.status));
  err(`${event.method} ${event.path} ${status} ${event.ms.toFixed(1)} ms`);
}

async function runSandbox(flags: SandboxFlags): Promise<void> {
  const options = sandboxOptionsFromFlags(flags);
  const { startSandbox } = await import('../../sandbox/index.js');
  const sandbox = await startSandbox(flags.verbose ? { ...options, onRequest: logRequest } : options);
  // Scripts read the first stdout line: nothing may be printed to stdout before it.
  out(sandbox.url);
  err(`${paint.bold('listings sandbox')} imitates the Listing Publication Service at ${sandbox.url}${options.savedDefaults ? ' (with saved Marketplace configurations)' : ''}`);
  err(`  export LISTINGS_BASE_URL=${sandbox.url}`);
  err(`  export LISTINGS_API_KEY=${options.apiKey === undefined ? SANDBOX_DEFAULTS.apiKey : '<the key given with --api-key>'}`);
  const faults = describeFaults(options);
  if (faults) err(`  faults: ${faults}`);
  if (options.webhookUrl !== undefined) {
    err(`  webhooks: a ${options.webhookSecret === undefined ? 'unsigned' : 'signed'} listing.created callback to ${options.webhookUrl} after each listing created`);
  }
  if (options.dataFile !== undefined) err(`  data kept in ${options.dataFile} (${sandbox.stats().created} listings from earlier runs)`);
  err(paint.dim(`  counts at ${sandbox.url}/_sandbox/stats; stop with Ctrl-C`));
  await untilSignal();
  await sandbox.close();
  const stats = sandbox.stats();
  err(`sandbox stopped: ${stats.requests} requests, ${stats.created} SKUs created, ${stats.replayed} replayed, ${stats.duplicates} duplicates`);
  const hooks = stats.webhooks;
  if (hooks !== undefined) err(`webhooks: ${hooks.sent} sent, ${hooks.delivered} delivered, ${hooks.failed_attempts} failed attempts, ${hooks.given_up} given up, ${hooks.pending} still pending, abandoned`);
}

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run a local server that implements the service contract, with fault injection for testing')
    .optionsGroup('Server options:')
    .option('--port <port>', `port to listen on; 0 picks a free one (default ${SANDBOX_DEFAULTS.port})`)
    .option('--host <host>', `interface to listen on (default ${SANDBOX_DEFAULTS.host})`)
    .option('--api-key <key>', `the API key the sandbox accepts (default ${SANDBOX_DEFAULTS.apiKey})`)
    .option('--saved-defaults', 'act as a workspace with saved Marketplace configurations: the location key and policy ids may be omitted')
    .optionsGroup('Fault injection options:')
    .option('--latency <ms>', 'delay of every answer: MS or MIN-MAX')
    .option('--fail-rate <p>', 'share of requests (0..1) answered 500 or 503')
    .option('--fail-status <code>', 'status of the injected failures, e.g. 503')
    .option('--rate-limit <n>', 'requests per second accepted; more get 429')
    .option('--retry-after <s>', `seconds announced in Retry-After on a 429 (default ${SANDBOX_DEFAULTS.retryAfterSeconds})`)
    .option('--capacity <n>', 'listing requests served at once; more wait in the queue (default unlimited)')
    .option('--queue <n>', 'requests allowed to wait beyond --capacity; more get 503 at once (default unlimited)')
    .option('--drop-rate <p>', 'share of requests (0..1) processed but left unanswered (connection closed)')
    .option('--spike-rate <p>', 'share of answers (0..1) delayed by a latency spike of --spike-ms')
    .option('--spike-ms <ms>', `extra delay of a latency spike (default ${SANDBOX_DEFAULTS.spikeMs})`)
    .option('--seed <n>', 'seed of the fault injection, to repeat a run')
    .optionsGroup('Server options:')
    .option('--max-body-bytes <n>', `largest body accepted; more get 413 (default ${SANDBOX_DEFAULTS.maxBodyBytes})`)
    .option('--data <file>', 'keep the listings and idempotency keys in this file (NDJSON, appended), and continue from it when restarted')
    .option('--webhook-url <url>', 'post a listing.created callback here after each listing created (try it with listings listen)')
    .option('--webhook-secret <secret>', 'sign the callbacks: Listings-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">')
    .option('--webhook-attempts <n>', `attempts of a callback before it is given up, the first included (default ${SANDBOX_DEFAULTS.webhookAttempts})`)
    .option('--webhook-backoff-ms <ms>', `wait before the first retry of a callback; doubles at each retry, up to 30 s (default ${SANDBOX_DEFAULTS.webhookBackoffMs})`)
    .optionsGroup(GROUP.output)
    .option('--verbose', 'log every request on stderr')
    .optionsGroup('')
    .action(async (flags: SandboxFlags) => runSandbox(flags));
}
