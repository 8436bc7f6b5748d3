import type { Command } from 'commander';
import { NOT_REPEATED, repeatedFlags } from '../repeat-flags.js';
import { loadSettings } from '../settings.js';
import { declareFlags } from '../flags.js';
import { ENQUEUE_EXITS, exitCodesText } from '../../run/verdict.js';
import type { EnqueueFlags } from './enqueue-flags.js';
import { CATALOG_SOURCES_HELP } from '../../catalog/sources/source-kind.js';

export function registerEnqueue(program: Command): void {
  const command = program
    .command('enqueue')
    .description(`read, map and validate a catalog as publish does, and send each listing to a Kafka topic for listings stream workers to publish; ${exitCodesText(ENQUEUE_EXITS)}`)
    .argument('<source>', CATALOG_SOURCES_HELP)
    .argument('<topic>', 'kafka://HOST:PORT[,HOST:PORT...]/TOPIC: one message per listing, keyed MARKETPLACE/SKU');
  declareFlags(command, 'enqueue').action(async (source: string, topic: string, flags: EnqueueFlags, self: Command) => {
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    const { runEnqueue } = await import('./enqueue-action.js');
    try {
      await runEnqueue(source, topic, flags, () => loadSettings(self.opts()), repeatedFlags(self, NOT_REPEATED));
    } finally {
      // Everything is acknowledged and written: a Kafka client still retrying brokers that are gone must not hold the exit.
      setTimeout(() => process.exit(), 3000).unref();
    }
  });
}
