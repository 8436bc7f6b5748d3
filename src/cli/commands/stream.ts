import { Option, type Command } from 'commander';
import { perSecond, whole } from '../option-parsers.js';
import { addSettingsOptions, loadSettings } from '../settings.js';
import { collect } from '../catalog-options.js';
import { PRESETS } from '../../catalog/types.js';
import { GROUP } from '../help.js';
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
  addSettingsOptions(command)
    .optionsGroup(GROUP.sending)
    .option('--sandbox', 'publish to an embedded sandbox started on a free port (try it with no account)')
    .option('--rate <n>', 'at most this many requests per second (a ceiling: the pace is also learned from 429s)', perSecond)
    .option('--max-attempts <n>', 'attempts per message that end in an error (pushback does not count), the first included', whole(1, 100), 5)
    .option('--timeout <ms>', "time limit for an answer's headers, and between chunks of its body (default 30000)", whole(100, 600_000))
    .option('--connect-timeout <ms>', 'time limit for opening a connection (default 10000)', whole(100, 600_000))
    .option('--give-up-after <s>', 'end (exit 3, after committing what is done) once the service has accepted nothing for this long (default 60)', whole(1, 86_400))
    .optionsGroup('Kafka options:')
    .option('--kafka-tls', 'connect to the brokers over TLS (env LISTINGS_KAFKA_TLS=1; SASL from LISTINGS_KAFKA_SASL_MECHANISM, LISTINGS_KAFKA_USERNAME, LISTINGS_KAFKA_PASSWORD)')
    .option('--max-buffered <n>', 'messages read and not yet published or dead-lettered, at most: fetching pauses beyond it', whole(1, 1_000_000), 4096)
    .option('--commit-interval <ms>', 'how often durable progress is committed (also at each rebalance and at the end)', whole(100, 600_000), 1000)
    .option('--session-timeout <ms>', 'how soon the group takes over the partitions of a process that died', whole(3000, 300_000), 10_000)
    .option('--drain-timeout <s>', 'on stop, how long requests in flight may take before they are abandoned', whole(0, 3600), 30)
    .optionsGroup(GROUP.output)
    .option('--json', 'print the final summary as one JSON object on stdout')
    .option('--quiet', 'print only the summary, warnings and errors')
    .option('--status-interval <s>', 'without a terminal (CI, logs): a status line this often', whole(1, 3600), 10)
    .addOption(new Option('--log-format <format>', 'stderr as human lines, or as NDJSON events').choices(['human', 'json']).default('human'))
    .optionsGroup('');
  command.action(async (source: string, flags: StreamFlags, self: Command) => {
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
