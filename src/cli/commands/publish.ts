import type { Command } from 'commander';
import { loadSettings } from '../settings.js';
import { declareFlags } from '../flags.js';
import { exitCodesText, PUBLISH_EXITS } from '../../run/verdict.js';
import type { PublishFlags } from './publish-flags.js';
import { CATALOG_SOURCES_HELP } from '../../catalog/sources/source-kind.js';
import { NOT_REPEATED, repeatedFlags } from '../repeat-flags.js';

export function registerPublish(program: Command): void {
  const command = program
    .command('publish')
    .description(`publish catalogs: concurrent, retried, resumable; ${exitCodesText(PUBLISH_EXITS)}`)
    .argument('<source...>', CATALOG_SOURCES_HELP);
  declareFlags(command, 'publish').action(async (sources: string[], flags: PublishFlags, self: Command) => {
    if (flags.debug === true) process.env.LISTINGS_DEBUG = '1';
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    if (flags.shard?.trim() === 'auto') flags.shard = (await import('../shard-auto.js')).announceAutoShard(flags.quiet === true);
    const { runPublish } = await import('./publish-action.js');
    await runPublish(sources, flags, () => loadSettings(self.opts()), repeatedFlags(self, NOT_REPEATED));
  });
}
