import type { Command } from 'commander';
import { loadSettings } from '../settings.js';
import { declareFlags } from '../flags.js';
import type { StreamFlags } from './stream-flags.js';
import { NOT_REPEATED, repeatedFlags } from '../repeat-flags.js';

export function registerStream(program: Command): void {
  const command = program
    .command('stream')
    .description('publish product changes from a Kafka topic as they arrive, in a consumer group, until Ctrl-C or SIGTERM: exit 0 stopped cleanly, 2 usage, 3 service unusable, 4 Kafka unusable, 130 abandoned')
    .argument('<source>', 'kafka://HOST:PORT[,HOST:PORT...]/TOPIC: messages are JSON objects shaped like catalog records; the key is the SKU');
  declareFlags(command, 'stream').action(async (source: string, flags: StreamFlags, self: Command) => {
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    const { runStream } = await import('./stream-action.js');
    try {
      await runStream(source, flags, () => loadSettings(self.opts()), repeatedFlags(self, NOT_REPEATED));
    } finally {
      // The summary is out and the offsets committed: a Kafka client still retrying brokers that are gone must not
      // hold the exit (the timer keeps nothing alive by itself).
      setTimeout(() => process.exit(), 3000).unref();
    }
  });
}
