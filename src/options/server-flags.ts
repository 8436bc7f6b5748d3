import type { FlagSpec } from './spec.js';

const text = (placeholder: string) => ({ kind: 'text', placeholder }) as const;
/** A number as written, read where the options are built; the sandbox checks its range and names the option. */
const number = (placeholder: string) => ({ kind: 'text', placeholder, number: true }) as const;

/** The commands that take the fault injection options: the sandbox, and the runs that start one with `--sandbox`. */
const FAULTS_OF = ['sandbox', 'publish', 'stream'] as const;

/**
 * The options of `listings sandbox`. Most values are checked by the sandbox itself (src/sandbox/options.ts, which
 * names each by its option); the defaults shown are the sandbox's own (a test keeps them equal).
 */
export const SANDBOX_FLAGS: readonly FlagSpec[] = [
  { name: 'port', commands: ['sandbox'], group: 'server', key: 'port', value: number('port'), default: 4010, defaultBelow: true, description: 'port to listen on; 0 picks a free one' },
  { name: 'host', commands: ['sandbox'], group: 'server', key: 'host', value: text('host'), default: '127.0.0.1', defaultBelow: true, description: 'interface to listen on' },
  { name: 'api-key', commands: ['sandbox'], group: 'server', key: 'apiKey', value: text('key'), default: 'sandbox-key', defaultBelow: true, description: 'the API key the sandbox accepts' },
  { name: 'saved-defaults', commands: ['sandbox'], group: 'server', key: 'savedDefaults', description: 'act as a workspace with saved Marketplace configurations: the location key and policy ids may be omitted' },
  { name: 'latency', commands: FAULTS_OF, group: 'faults', key: 'latency', value: { kind: 'duration', bare: 'ms', unit: 'ms', min: '0ms', max: '1h', range: true }, description: 'delay of every answer: one duration, or MIN-MAX' },
  { name: 'fail-rate', commands: FAULTS_OF, group: 'faults', key: 'failRate', value: number('p'), description: 'share of requests (0..1) answered 500 or 503' },
  { name: 'fail-status', commands: FAULTS_OF, group: 'faults', key: 'failStatus', value: number('code'), description: 'status of the injected failures, e.g. 503' },
  { name: 'rate-limit', commands: FAULTS_OF, group: 'faults', key: 'rateLimit', value: number('n'), description: 'requests per second accepted; more get 429' },
  { name: 'rate-burst', commands: FAULTS_OF, group: 'faults', key: 'rateBurst', value: number('n'), description: "requests {{rate-limit}} lets through at once (its bucket); default one second's worth" },
  { name: 'retry-after', commands: FAULTS_OF, group: 'faults', key: 'retryAfterSeconds', value: { kind: 'duration', bare: 's', unit: 's', min: '0s', max: '24h' }, default: '1s', defaultBelow: true, description: 'announced in Retry-After on a 429' },
  { name: 'capacity', commands: FAULTS_OF, group: 'faults', key: 'capacity', value: number('n'), default: 'unlimited', defaultBelow: true, description: 'listing requests served at once; more wait in the queue' },
  { name: 'queue', commands: FAULTS_OF, group: 'faults', key: 'queue', value: number('n'), default: 'unlimited', defaultBelow: true, description: 'requests allowed to wait beyond {{capacity}}; more get 503 at once' },
  { name: 'drop-rate', commands: FAULTS_OF, group: 'faults', key: 'dropRate', value: number('p'), description: 'share of requests (0..1) processed but left unanswered (connection closed)' },
  { name: 'spike-rate', commands: FAULTS_OF, group: 'faults', key: 'spikeRate', value: number('p'), description: 'share of answers (0..1) delayed by a latency spike of {{spike-ms}}' },
  { name: 'spike-ms', commands: FAULTS_OF, group: 'faults', key: 'spikeMs', value: { kind: 'duration', bare: 'ms', unit: 'ms', min: '0ms', max: '1h' }, default: '2s', defaultBelow: true, description: 'extra delay of a latency spike' },
  { name: 'seed', commands: FAULTS_OF, group: 'faults', key: 'seed', value: number('n'), description: 'seed of the fault injection, to repeat a run' },
  {
    name: 'max-body', commands: ['sandbox'], group: 'server', key: 'maxBodyBytes',
    value: { kind: 'whole', placeholder: 'bytes', min: 1, max: 1024 * 1024 * 1024 },
    default: 1024 * 1024,
    defaultBelow: true,
    aliases: ['max-body-bytes'],
    description: 'largest body accepted; larger ones get 413',
  },
  { name: 'data', commands: ['sandbox'], group: 'server', key: 'dataFile', value: text('file'), complete: 'files', description: 'keep the listings and idempotency keys in this file (NDJSON, appended), and continue from it when restarted' },
  { name: 'webhook-url', commands: ['sandbox'], group: 'server', key: 'webhookUrl', value: text('url'), description: 'post a listing.created callback here after each listing created (try it with listings listen)' },
  { name: 'webhook-secret', commands: ['sandbox'], group: 'server', key: 'webhookSecret', value: text('secret'), description: 'sign the callbacks: Listings-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">' },
  { name: 'webhook-attempts', commands: ['sandbox'], group: 'server', key: 'webhookAttempts', value: number('n'), default: 5, defaultBelow: true, description: 'attempts of a callback before it is given up, the first included' },
  {
    name: 'webhook-backoff-ms', commands: ['sandbox'], group: 'server', key: 'webhookBackoffMs',
    value: { kind: 'duration', bare: 'ms', unit: 'ms', min: '0ms', max: '1h' },
    default: '250ms',
    defaultBelow: true,
    description: 'wait before the first retry of a callback; doubles at each retry, up to 30s',
  },
  { name: 'verbose', commands: ['sandbox'], group: 'output', description: 'log every request on stderr' },
];

/** The options of `listings listen`; the defaults shown are the listener's own (src/listen/options.ts; a test keeps them equal). */
export const LISTEN_FLAGS: readonly FlagSpec[] = [
  { name: 'port', commands: ['listen'], group: 'receiving', key: 'port', value: { kind: 'whole', placeholder: 'port', min: 0, max: 65535 }, default: 8787, defaultBelow: true, description: 'port to listen on; 0 picks a free one' },
  { name: 'host', commands: ['listen'], group: 'receiving', key: 'host', value: text('host'), default: '127.0.0.1', defaultBelow: true, description: 'interface to listen on; another than loopback needs {{secret-env}} or {{allow-unsigned}}' },
  { name: 'path', commands: ['listen'], group: 'receiving', key: 'path', value: text('path'), default: '/', defaultBelow: true, description: 'path callbacks arrive at; / takes every path' },
  { name: 'max-body', commands: ['listen'], group: 'receiving', key: 'maxBodyBytes', value: { kind: 'whole', placeholder: 'bytes', min: 1, max: 1024 * 1024 * 1024 }, default: 1024 * 1024, defaultBelow: true, description: 'largest body accepted; larger ones get 413' },
  { name: 'max-connections', commands: ['listen'], group: 'receiving', key: 'maxConnections', value: { kind: 'whole', placeholder: 'n', min: 1, max: 1_000_000 }, default: 256, defaultBelow: true, description: 'connections open at once; more are closed as they arrive' },
  {
    name: 'request-timeout', commands: ['listen'], group: 'receiving', key: 'requestTimeoutSeconds',
    value: { kind: 'duration', bare: 's', unit: 's', min: '1s', max: '1h' },
    default: '15s',
    defaultBelow: true,
    description: 'time a request may take to arrive whole, and an idle connection is kept; a slower one gets 408',
  },
  { name: 'secret-env', commands: ['listen'], group: 'signature', key: 'secret', value: text('name'), description: 'verify signatures with the secret in this environment variable; unsigned or badly signed callbacks get 401' },
  { name: 'allow-unsigned', commands: ['listen'], group: 'signature', key: 'allowUnsigned', description: 'receive unsigned callbacks on a {{host}} other machines can reach (a warning is printed)' },
  { name: 'signature-header', commands: ['listen'], group: 'signature', key: 'signatureHeader', value: text('name'), default: 'Listings-Signature', defaultBelow: true, description: 'header of the signature t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">' },
  { name: 'tolerance', commands: ['listen'], group: 'signature', key: 'toleranceSeconds', value: { kind: 'duration', bare: 's', unit: 's', min: '1s', max: '8760h' }, default: '5m', defaultBelow: true, description: "how far a signature's timestamp may be from now" },
  { name: 'forward-to', commands: ['listen'], group: 'forwarding', key: 'forwardTo', value: text('url'), description: 'send each callback on to this URL: same method, headers (without credentials) and body bytes' },
  { name: 'record', commands: ['listen'], group: 'forwarding', key: 'recordFile', value: text('file'), complete: 'files', description: 'append each callback to this NDJSON file, body byte for byte, for {{replay}}' },
  { name: 'replay', commands: ['listen'], group: 'forwarding', value: text('file'), complete: 'files', description: 'send the callbacks of a recording to {{forward-to}}, in order, then exit (1 when one failed)' },
  { name: 'json', commands: ['listen'], group: 'output', description: 'one JSON object per callback on stdout (NDJSON)' },
];
