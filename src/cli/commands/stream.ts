import { Option, type Command } from 'commander';
import { whole } from '../option-parsers.js';
import { addOutputFlags, addSendingFlags } from '../sending-flags.js';
import { addSettingsOptions, loadSettings } from '../settings.js';
import { collect } from '../catalog-options.js';
import { PRESETS } from '../../catalog/types.js';
import { GROUP } from '../help.js';
import { addKafkaSecurityFlags } from '../kafka-flags.js';
import type { StreamFlags } from './stream-flags.js';

export function registerStream(program: Command): void {
  const command = program
    .command('stream')
    .description('publish product changes from a Kafka topic as they arrive, in a consumer group, until Ctrl-C or SIGTERM: exit 0 stopped cleanly, 2 usage, 3 service unusable, 4 Kafka unusable, 130 abandoned')
    .argument('<source>', 'kafka://HOST:PORT[,HOST:PORT...]/TOPIC: messages are JSON objects shaped like catalog records; the key is the SKU')
    .requiredOption('--group <name>', 'consumer group: processes with the same group share the partitions (and take over those of one that dies)')
    .option('--dead-letter <file|kafka://...>', 'where failed and invalid messages go, with the reason: an NDJSON file or a topic (default .listings/dead-letter-<topic>-<group>.ndjson)')
    .addOption(new Option('--from <where>', 'where a group with no committed offset starts').choices(['earliest', 'latest']).default('earliest'))
    .option('--map <field=key>', 'take a listing field from a message key of another name (repeatable)', collect, [])
    .option('--mapping <file>', 'a JSON file of field -> key renames')
    .option('--list-separator <text>', 'separator of list values inside one string (images_source)', '|')
    .addOption(new Option('--preset <name>', "messages are records of a shop system's export").choices(PRESETS));
  addSendingFlags(addSettingsOptions(command).optionsGroup(GROUP.sending), 'message');
  addKafkaSecurityFlags(command.optionsGroup('Kafka options:'))
    .option('--max-buffered <n>', 'messages read and not yet published or dead-lettered, at most: fetching pauses beyond it', whole(1, 1_000_000), 4096)
    .option('--commit-interval <ms>', 'how often durable progress is committed (also at each rebalance and at the end)', whole(100, 600_000), 1000)
    .option('--session-timeout <ms>', 'how soon the group takes over the partitions of a process that died', whole(3000, 300_000), 10_000)
    .option('--drain-timeout <s>', 'on stop, how long requests in flight may take before they are abandoned', whole(0, 3600), 30)
    .optionsGroup(GROUP.output);
  addOutputFlags(command, 'message')
    .option('--status-interval <s>', 'without a terminal (CI, logs): a status line this often', whole(1, 3600), 10)
    .optionsGroup('');
  command.action(async (source: string, flags: StreamFlags, self: Command) => {
    // From here on every stderr line is an event, the errors of loading the settings included.
    if (flags.logFormat === 'json') (await import('../log-events.js')).captureStderrAsJson();
    const { runStream } = await import('./stream-action.js');
    try {
      await runStream(source, flags, () => loadSettings(self.opts()));
    } finally {
      // The summary is out and the offsets committed: a Kafka client still retrying brokers that are gone must not
      // hold the exit (the timer keeps nothing alive by itself).
      setTimeout(() => process.exit(), 3000).unref();
    }
  });
}
