import { Option, type Command } from 'commander';
import { perSecond, whole } from '../option-parsers.js';
import { addSettingsOptions, loadSettings } from '../settings.js';
import { addCatalogOptions } from '../catalog-options.js';
import { GROUP } from '../help.js';
import type { PublishFlags } from './publish-flags.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerPublish(program: Command): void {
  const command = program
    .command('publish')
    .description('publish catalogs: concurrent, retried, resumable; exit 0 all published, 1 some failed or invalid, 2 usage, 3 service unusable, 4 source unreadable, 130 interrupted')
    .argument('<source...>', 'catalog: a file, - for stdin, an http(s):// URL, s3://bucket/key or s3://bucket/prefix/');
  // The settings first: where the rows go leads the sending options.
  addSettingsOptions(addCatalogOptions(command))
    .optionsGroup(GROUP.sending)
    .option('--sandbox', 'publish to an embedded sandbox started on a free port (try the tool with no account)')
    .option('--dry-run', 'everything but the network: rows that would be sent are "validated"')
    .option('--rate <n>', 'at most this many requests per second (a ceiling: the pace is also learned from 429s)', perSecond)
    .option('--max-attempts <n>', 'attempts per row, the first included', whole(1, 100), 5)
    .option('--timeout <ms>', "time limit for an answer's headers, and between chunks of its body (default 30000)", whole(100, 600_000))
    .option('--connect-timeout <ms>', 'time limit for opening a connection (default 10000)', whole(100, 600_000))
    .option('--give-up-after <s>', 'stop (exit 3) once the service has accepted nothing for this long: only pushback, timeouts or no connection (default 60)', whole(1, 86_400))
    .option('--max-errors <n>', 'stop once this many rows have failed (the rest are not_attempted)', whole(1, Number.MAX_SAFE_INTEGER))
    .optionsGroup(GROUP.rows)
    .option('--changed-only', 'send only rows that are new or changed since the last run (see --state)')
    .option('--state <file>', 'the --changed-only state file (default .listings/state-<source hash>.ndjson)')
    .option('--shard <K/N>', 'publish only the rows whose SKU hashes to shard K of N (CI matrix jobs)')
    .option('--resume', 'skip rows an earlier run of this source already published (from the journal)')
    .option('--journal <file>', 'the resume journal (default .listings/journal-<source hash>.ndjson)')
    .option('--no-journal', 'keep no resume journal')
    .option('--retry-failed <report>', 'send again only the rows a previous report lists as failed or not_attempted')
    .optionsGroup(GROUP.output)
    .option('--report <file>', 'write a results report: .csv, .json, .ndjson or .xml (JUnit); repeatable', collect, [])
    .option('--json', 'print the summary as one JSON object on stdout')
    .option('--quiet', 'print only the summary and errors')
    .addOption(new Option('--log-format <format>', 'stderr as human lines, or as NDJSON events (json: one object a line, no progress line)').choices(['human', 'json']).default('human'))
    .option('--verbose', 'a line (or, with --log-format json, an event) per request: method, path, status, latency, attempt; and each retry')
    .option('--debug', 'resolved settings (key masked), timings, and the cause and stack of every error (env LISTINGS_DEBUG=1)')
    .optionsGroup('');
  command.action(async (sources: string[], flags: PublishFlags, self: Command) => {
    if (flags.debug === true) process.env.LISTINGS_DEBUG = '1';
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    const { runPublish } = await import('./publish-action.js');
    await runPublish(sources, flags, () => loadSettings(self.opts()));
  });
}
