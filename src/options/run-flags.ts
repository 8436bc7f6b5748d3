import type { FlagSpec, ValueSpec } from './spec.js';

/** A client time limit: a number alone is milliseconds, as `--timeout <ms>` took before units. */
const CLIENT_TIMEOUT: ValueSpec = { kind: 'duration', bare: 'ms', unit: 'ms', min: '100ms', max: '10m' };
/** How long nothing may be accepted before the service is taken for down: a number alone is seconds. */
const GIVE_UP: ValueSpec = { kind: 'duration', bare: 's', unit: 's', min: '1s', max: '24h' };
const PUSHBACK = 'once the service has accepted nothing for this long: only pushback, timeouts or no connection';

/** How the requests of publish and stream leave (the same engine), and the client time limits create shares. */
export const SENDING_FLAGS: readonly FlagSpec[] = [
  { name: 'sandbox', commands: ['publish', 'stream'], group: 'sending', key: 'sandbox', description: 'publish to an embedded sandbox started on a free port (try it with no account); the fault injection options make it fail, throttle or slow down, to see retries and failed rows' },
  { name: 'rate', commands: ['publish', 'stream'], group: 'sending', value: { kind: 'rate', placeholder: 'n' }, description: 'at most this many requests per second (a ceiling: the pace is also learned from 429s)' },
  { name: 'max-attempts', commands: ['publish'], group: 'sending', value: { kind: 'whole', placeholder: 'n', min: 1, max: 100 }, default: 5, description: 'attempts per row that end in an error (pushback does not count), the first included' },
  { name: 'max-attempts', commands: ['stream'], group: 'sending', value: { kind: 'whole', placeholder: 'n', min: 1, max: 100 }, default: 5, description: 'attempts per message that end in an error (pushback does not count), the first included' },
  { name: 'timeout', commands: ['publish', 'stream', 'create'], group: 'sending', value: CLIENT_TIMEOUT, default: '30s', defaultBelow: true, description: "time limit for an answer's headers, and between chunks of its body" },
  { name: 'connect-timeout', commands: ['publish', 'stream'], group: 'sending', value: CLIENT_TIMEOUT, default: '10s', defaultBelow: true, description: 'time limit for opening a connection' },
  { name: 'give-up-after', commands: ['publish'], group: 'sending', value: GIVE_UP, default: '60s', defaultBelow: true, description: `stop (exit 3) ${PUSHBACK}` },
  { name: 'give-up-after', commands: ['stream'], group: 'sending', value: GIVE_UP, default: '60s', defaultBelow: true, description: `end (exit 3, after committing what is done) ${PUSHBACK}` },
  { name: 'dry-run', commands: ['publish'], group: 'sending', key: 'dryRun', description: 'everything but the network: rows that would be sent are "validated"' },
  {
    name: 'max-errors',
    commands: ['publish'],
    group: 'sending',
    key: 'maxErrors',
    value: { kind: 'whole', placeholder: 'n', min: 1, max: Number.MAX_SAFE_INTEGER },
    description: 'stop once this many rows have failed (the rest are not_attempted)',
  },
  // doctor and init check the service once per check: their own limit, shorter than a run's.
  { name: 'timeout', commands: ['doctor', 'init'], group: 'sending', value: CLIENT_TIMEOUT, default: '10s', description: 'time limit of each network check' },
];

/** Which rows of a publish are sent: changed only, one shard, resumed, retried from a report. */
export const ROW_FLAGS: readonly FlagSpec[] = [
  { name: 'changed-only', commands: ['publish'], group: 'rows', key: 'changedOnly', description: 'send only rows that are new or changed since the last run (see {{state}})' },
  { name: 'state', commands: ['publish'], group: 'rows', key: 'state', value: { kind: 'text', placeholder: 'file' }, complete: 'files', default: '.listings/state-<source hash>.ndjson', defaultBelow: true, description: 'the {{changed-only}} state file' },
  { name: 'shard', commands: ['publish'], group: 'rows', key: 'shard', value: { kind: 'text', placeholder: 'K/N|auto' }, description: "publish only the rows whose SKU hashes to shard K of N (CI matrix jobs); auto reads the job's index and total from the CI" },
  { name: 'resume', commands: ['publish'], group: 'rows', key: 'resume', description: 'skip rows an earlier run of this source already published (from the journal)' },
  {
    name: 'journal',
    commands: ['publish'],
    group: 'rows',
    key: 'journal',
    value: { kind: 'text', placeholder: 'file' },
    complete: 'files',
    default: '.listings/journal-<source hash>.ndjson',
    defaultBelow: true,
    negation: 'keep no resume journal',
    description: 'the resume journal',
  },
  {
    name: 'retry-failed',
    commands: ['publish'],
    group: 'rows',
    key: 'retryFailed',
    value: { kind: 'text', placeholder: 'report' },
    complete: 'files',
    description: 'send again only the rows a previous report lists as failed or not_attempted',
  },
];

const LOG_FORMAT: ValueSpec = { kind: 'choice', placeholder: 'format', choices: ['human', 'json'] };

/** What a run prints and writes: reports, the summary, the log on stderr. */
export const OUTPUT_FLAGS: readonly FlagSpec[] = [
  {
    name: 'report',
    commands: ['publish', 'validate', 'enqueue'],
    group: 'output',
    key: 'report',
    value: { kind: 'text', placeholder: 'file' },
    complete: 'files',
    repeatable: true,
    description: 'write a results report, its format told by the extension: .csv, .json, .ndjson, .xml (JUnit) or .html',
  },
  { name: 'json', commands: ['publish', 'enqueue'], group: 'output', description: 'print the summary as one JSON object on stdout' },
  { name: 'json', commands: ['stream'], group: 'output', description: 'print the final summary as one JSON object on stdout' },
  { name: 'quiet', commands: ['publish', 'validate', 'enqueue'], group: 'output', description: 'print only the summary and errors' },
  { name: 'quiet', commands: ['stream'], group: 'output', description: 'print only the summary, warnings and errors' },
  { name: 'log-format', commands: ['publish', 'validate', 'enqueue'], group: 'output', value: LOG_FORMAT, default: 'human', description: 'stderr as human lines, or as NDJSON events (json: one object a line, no progress line)' },
  { name: 'log-format', commands: ['stream'], group: 'output', value: LOG_FORMAT, default: 'human', description: 'stderr as human lines, or as NDJSON events' },
  {
    name: 'show-errors',
    commands: ['validate'],
    group: 'output',
    key: 'showErrors',
    value: { kind: 'whole', placeholder: 'n', min: 0, max: Number.MAX_SAFE_INTEGER, all: true },
    default: 50,
    description: 'print at most this many errors, then a count of the rest ("all" for no limit)',
  },
  {
    name: 'max-errors',
    commands: ['validate'],
    group: 'output',
    key: 'maxErrors',
    value: { kind: 'whole', placeholder: 'n', min: 1, max: Number.MAX_SAFE_INTEGER, all: true, belowMin: '{{show-errors}} 0 prints no error' },
    description: 'stop validating once this many rows are invalid (the rest are not_attempted), as publish stops at failed rows; "all" for no limit',
  },
  { name: 'json', commands: ['validate'], group: 'output', description: 'print the result as one JSON object: {rows, valid, invalid, errors: [{source, line, field, message}]}' },
  { name: 'out', commands: ['validate'], group: 'output', key: 'requestsOut', value: { kind: 'text', placeholder: 'file' }, complete: 'files', description: 'write the request bodies that would be sent, one JSON per line per valid row' },
  { name: 'status-interval', commands: ['stream'], group: 'output', value: { kind: 'duration', bare: 's', unit: 's', min: '1s', max: '1h' }, default: '10s', description: 'without a terminal (CI, logs): a status line this often' },
  {
    name: 'admin-listen',
    commands: ['stream'],
    group: 'output',
    key: 'adminListen',
    env: 'LISTINGS_ADMIN_LISTEN',
    value: { kind: 'text', placeholder: '[host:]port' },
    description: 'serve /healthz, /readyz and /metrics (Prometheus) here; a bare port is loopback only, 0.0.0.0:PORT for probes from outside',
  },
  { name: 'verbose', commands: ['publish'], group: 'other', description: 'a line (or, with {{log-format}} json, an event) per request: method, path, status, latency, attempt; and each retry' },
  { name: 'debug', commands: ['publish'], group: 'other', env: 'LISTINGS_DEBUG', description: 'resolved settings (key masked), timings, and the cause and stack of every error' },
];

/** The Kafka side of `listings stream`: the group, where to start, what to do with failures, the pace of commits. */
export const KAFKA_FLAGS: readonly FlagSpec[] = [
  { name: 'group', commands: ['stream'], group: 'kafka', required: true, value: { kind: 'text', placeholder: 'name' }, description: 'consumer group: processes with the same group share the partitions (and take over those of one that dies)' },
  {
    name: 'dead-letter',
    commands: ['stream'],
    group: 'kafka',
    key: 'deadLetter',
    value: { kind: 'text', placeholder: 'file|kafka://...' },
    complete: 'files',
    default: '.listings/dead-letter-<topic>-<group>.ndjson',
    defaultBelow: true,
    description: 'where failed and invalid messages go, with the reason: an NDJSON file or a topic',
  },
  { name: 'from', commands: ['stream'], group: 'kafka', value: { kind: 'choice', placeholder: 'where', choices: ['earliest', 'latest'] }, default: 'earliest', description: 'where a group with no committed offset starts' },
  {
    name: 'kafka-tls',
    commands: ['stream', 'enqueue'],
    group: 'kafka',
    env: 'LISTINGS_KAFKA_TLS',
    description: 'connect to the brokers over TLS (SASL from LISTINGS_KAFKA_SASL_MECHANISM, LISTINGS_KAFKA_USERNAME, LISTINGS_KAFKA_PASSWORD)',
  },
  { name: 'max-buffered', commands: ['stream'], group: 'kafka', value: { kind: 'whole', placeholder: 'n', min: 1, max: 1_000_000 }, default: 4096, description: 'messages read and not yet published or dead-lettered, at most: fetching pauses beyond it' },
  { name: 'commit-interval', commands: ['stream'], group: 'kafka', value: { kind: 'duration', bare: 'ms', unit: 'ms', min: '100ms', max: '10m' }, default: '1s', description: 'how often durable progress is committed (also at each rebalance and at the end)' },
  { name: 'session-timeout', commands: ['stream'], group: 'kafka', value: { kind: 'duration', bare: 'ms', unit: 'ms', min: '3s', max: '5m' }, default: '10s', description: 'how soon the group takes over the partitions of a process that died' },
  { name: 'drain-timeout', commands: ['stream'], group: 'kafka', value: { kind: 'duration', bare: 's', unit: 's', min: '0s', max: '1h' }, default: '30s', description: 'on stop, how long requests in flight may take before they are abandoned' },
  { name: 'batch-size', commands: ['enqueue'], group: 'kafka', value: { kind: 'whole', placeholder: 'n', min: 1, max: 100_000 }, default: 1000, description: 'messages per produce request, at most (and 1 MiB of them)' },
  { name: 'compression', commands: ['enqueue'], group: 'kafka', value: { kind: 'choice', placeholder: 'codec', choices: ['gzip', 'none'] }, default: 'gzip', description: 'compression of each batch' },
];

/** The options of `create`, `doctor` and `init` that are theirs alone. */
export const SETUP_FLAGS: readonly FlagSpec[] = [
  { name: 'image', commands: ['create'], group: 'listing', key: 'images', value: { kind: 'text', placeholder: 'url' }, repeatable: true, description: 'image URL' },
  { name: 'title', commands: ['create'], group: 'listing', key: 'title', value: { kind: 'text', placeholder: 'title' }, description: 'item title (wrapped shape)' },
  { name: 'json', commands: ['create'], group: 'output', description: 'print the listing the service answered as JSON, or {error: {kind, status, message, hint}, exit_code} when none was made' },
  { name: 'json', commands: ['doctor'], group: 'output', description: 'print the checks as one JSON object: {ok, exit_code, checks: [{name, status, message, fix}]}' },
  { name: 'yes', short: 'y', commands: ['init'], group: 'other', description: 'ask nothing: the answers come from the flags (else the environment, the profile, the defaults); a missing one is a usage error' },
  { name: 'no-check', commands: ['init'], group: 'other', description: 'do not check the base URL once the profile is written' },
];
