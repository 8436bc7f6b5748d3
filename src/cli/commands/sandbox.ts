import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { describeFaults, stoppedLines } from '../../sandbox/option-text.js';
import { registerSecret } from '../../secrets.js';
import { sandboxOptionIssues, SANDBOX_DEFAULTS } from '../../sandbox/options.js';
import type { LatencyRange, SandboxOptions, SandboxRequestEvent } from '../../sandbox/types.js';
import { err, out, paint } from '../output.js';
import { declareFlags, flagOfKey, optionsOfFlags } from '../flags.js';
import { untilSignal } from '../signals.js';

/** The raw flags of `listings sandbox`, as commander collects them. */
export interface SandboxFlags {
  port?: string;
  host?: string;
  apiKey?: string;
  savedDefaults?: boolean;
  /** Parsed by the flag table: milliseconds, or a range of them. */
  latency?: number | LatencyRange;
  failRate?: string;
  failStatus?: string;
  rateLimit?: string;
  rateBurst?: string;
  /** Seconds (the flag table reads the duration). */
  retryAfter?: number;
  capacity?: string;
  queue?: string;
  dropRate?: string;
  spikeRate?: string;
  spikeMs?: number;
  seed?: string;
  maxBody?: number;
  data?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  webhookAttempts?: string;
  webhookBackoffMs?: number;
  verbose?: boolean;
}

/** Turn the flags into library options (src/options/server-flags.ts: each option's `key`); every bad value is a UsageError naming its flag. */
export function sandboxOptionsFromFlags(flags: SandboxFlags): SandboxOptions {
  const options = optionsOfFlags('sandbox', flags) as SandboxOptions;
  if (options.webhookSecret !== undefined) registerSecret(options.webhookSecret);
  // The ranges are checked once, by the sandbox.
  const issues = sandboxOptionIssues(options);
  if (issues.length > 0) {
    const lines = issues.map((issue) => {
      const named = flagOfKey('sandbox', issue.path, flags);
      const secret = issue.path === 'apiKey' || issue.path === 'webhookSecret';
      const shown = secret || typeof named?.raw !== 'string' ? '' : ` (got ${JSON.stringify(named.raw)})`;
      return `${named?.flag ?? issue.path} ${issue.message}${shown}`;
    });
    throw new UsageError(lines.length === 1 ? (lines[0] ?? '') : `invalid sandbox options:\n  ${lines.join('\n  ')}`);
  }
  return options;
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
  await untilSignal(false);
  await sandbox.close();
  for (const line of stoppedLines(sandbox.stats())) err(line);
}

export function registerSandbox(program: Command): void {
  const command = program.command('sandbox').description('run a local server that implements the service contract, with fault injection for testing');
  declareFlags(command, 'sandbox').action(async (flags: SandboxFlags) => runSandbox(flags));
}
