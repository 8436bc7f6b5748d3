import type { Command } from 'commander';
import { whole } from '../option-parsers.js';
import { addSettingsOptions, loadSettings } from '../settings.js';
import { addCatalogOptions } from '../catalog-options.js';
import { addOutputFlags, addReportFlag, addSendingFlags } from '../sending-flags.js';
import { GROUP } from '../help.js';
import { exitCodesText, PUBLISH_EXITS } from '../exit-codes.js';
import type { PublishFlags } from './publish-flags.js';

export function registerPublish(program: Command): void {
  const command = program
    .command('publish')
    .description(`publish catalogs: concurrent, retried, resumable; ${exitCodesText(PUBLISH_EXITS)}`)
    .argument('<source...>', 'catalog: a file, - for stdin, an http(s):// URL, s3://bucket/key or s3://bucket/prefix/');
  // The settings first: where the rows go leads the sending options.
  addSendingFlags(addSettingsOptions(addCatalogOptions(command)).optionsGroup(GROUP.sending), 'row')
    .option('--dry-run', 'everything but the network: rows that would be sent are "validated"')
    .option('--max-errors <n>', 'stop once this many rows have failed (the rest are not_attempted)', whole(1, Number.MAX_SAFE_INTEGER))
    .optionsGroup(GROUP.rows)
    .option('--changed-only', 'send only rows that are new or changed since the last run (see --state)')
    .option('--state <file>', 'the --changed-only state file (default .listings/state-<source hash>.ndjson)')
    .option('--shard <K/N|auto>', "publish only the rows whose SKU hashes to shard K of N (CI matrix jobs); auto reads the job's index and total from the CI")
    .option('--resume', 'skip rows an earlier run of this source already published (from the journal)')
    .option('--journal <file>', 'the resume journal (default .listings/journal-<source hash>.ndjson)')
    .option('--no-journal', 'keep no resume journal')
    .option('--retry-failed <report>', 'send again only the rows a previous report lists as failed or not_attempted')
    .optionsGroup(GROUP.output);
  addOutputFlags(addReportFlag(command), 'row')
    .option('--verbose', 'a line (or, with --log-format json, an event) per request: method, path, status, latency, attempt; and each retry')
    .option('--debug', 'resolved settings (key masked), timings, and the cause and stack of every error (env LISTINGS_DEBUG=1)')
    .optionsGroup('');
  command.action(async (sources: string[], flags: PublishFlags, self: Command) => {
    if (flags.debug === true) process.env.LISTINGS_DEBUG = '1';
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    if (flags.shard?.trim() === 'auto') flags.shard = (await import('../shard-auto.js')).announceAutoShard(flags.quiet === true);
    const { runPublish } = await import('./publish-action.js');
    await runPublish(sources, flags, () => loadSettings(self.opts()));
  });
}
