/**
 * (8) stream: `listings stream kafka://.../TOPIC --group G` against `listings sandbox` models, with a Kafka-protocol
 * cluster from kcat (librdkafka's mock cluster, on the server core). Two figures:
 * - throughput: a backlog of N messages on a 4-partition topic, drained by 1 and by 2 processes of one group, timed
 *   from spawn until the sandbox has created N listings; beside the model's ideal and `listings publish` of the same
 *   N records (NDJSON) against the same model;
 * - end-to-end latency in steady state: produce at a fixed rate to a joined stream, and the p50/p95/p99 from the
 *   message's timestamp to its publication (the stream's summary), and to its creation (the sandbox's callbacks).
 * Skipped, saying so, without kcat.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN, NODE, failure, listingsEnv, log, runListings, scratch } from '../lib/context.js';
import { spawnTracked, startServer } from '../lib/proc.js';
import { round } from '../lib/stats.js';
import { SANDBOX_KEY, startSandbox } from './servers.js';

const MODELS = [
  { name: 'latency-only', sandbox: ['--latency', '20-60'], ideal: 512 / 0.04, idealHow: '512 (default --max-concurrency) / 0.04 s mean latency' },
  { name: 'capacity', sandbox: ['--latency', '20-60', '--capacity', '64'], ideal: 64 / 0.04, idealHow: '64 served at once / 0.04 s mean latency' },
];
const DEFAULTS = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'F-1', '--payment-policy-id', 'P-1', '--return-policy-id', 'R-1'];
const ASSIGNED = /assigned to this process: (?!none)/;
const TICK_MS = 1000 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100);

export const kcatVersion = () => {
  const result = spawnSync('kcat', ['-V'], { encoding: 'utf8' });
  return result.status === 0 ? /Version (\S+)/.exec(result.stdout)?.[1] ?? 'unknown version' : undefined;
};

const percentiles = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return sorted.length === 0 ? undefined : { p50: at(0.5), p95: at(0.95), p99: at(0.99), count: sorted.length };
};

/** user + system CPU ms of a running process so far. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** Waits until `check()` is true, polling every 50 ms; throws after `timeoutMs`, with `state()` in the message. */
async function until(what, check, timeoutMs, state = () => '') {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} ${await state()}`);
    await sleep(50);
  }
}

/** A mock cluster of 3 brokers, served by kcat while its stdin is open; topics are created on first use, 4 partitions. */
const startKafka = () =>
  startServer('kcat', ['-P', '-b', 'dummy:9092', '-t', '_warmup', '-X', 'test.mock.num.brokers=3', '-d', 'mock'], {
    ready: /bootstrap\.servers=([0-9.:,]+)/,
    stdin: 'pipe',
  });

/** kcat with `args`; throws on failure. `-P` produces `input`, one `key<TAB>value` message per line. */
function kcat(args, input) {
  const result = spawnSync('kcat', args, { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`kcat ${args.join(' ')}: exit ${result.status}: ${result.stderr.slice(-300)}`);
}
const produce = (bootstrap, topic, tsv) => kcat(['-P', '-b', bootstrap, '-t', topic, '-K', '\t', '-z', 'none'], tsv);
// A metadata request for a topic creates it (4 partitions): the stream joins only a topic that exists.
const createTopic = (bootstrap, topic) => kcat(['-L', '-b', bootstrap, '-t', topic]);

/** `listings stream` in a fresh working directory; `joinedAt` is set once it holds partitions. */
function startStream(bootstrap, topic, group, sandboxUrl) {
  const work = scratch();
  const startedAt = performance.now();
  const args = [BIN, 'stream', `kafka://${bootstrap}/${topic}`, '--group', group, ...DEFAULTS, '--base-url', sandboxUrl, '--json', '--status-interval', '3600'];
  const child = spawnTracked(NODE, args, { cwd: work.dir, env: listingsEnv(work.dir, SANDBOX_KEY) });
  const stream = { child, startedAt, joinedAt: undefined, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stream.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stream.stderr += chunk;
    if (stream.joinedAt === undefined && ASSIGNED.test(stream.stderr)) stream.joinedAt = performance.now();
  });
  const closed = once(child, 'close');
  /** SIGTERM, then the exit code and the --json summary; throws when it does not stop cleanly. */
  stream.stop = async () => {
    child.kill('SIGTERM');
    const [code, signal] = await closed;
    work.remove();
    const summaryLine = stream.stdout.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !summaryLine.startsWith('{')) {
      const error = failure(`listings stream (${topic})`, { code, signal, stdout: stream.stdout, stderr: stream.stderr });
      throw Object.assign(error, { syncGroup: /Response SyncGroup/.test(stream.stderr) });
    }
    return JSON.parse(summaryLine);
  };
  return stream;
}

/**
 * One backlog drain: N messages on a fresh topic, a fresh sandbox, `processes` streams of one group spawned together;
 * wall time from the first spawn until the sandbox has created N listings.
 */
async function drainOnce(kafka, model, tsv, n, processes, attempt = 1) {
  const topic = `drain-${model.name}-${processes}-${attempt}`;
  produce(kafka.url, topic, tsv);
  const sandbox = await startSandbox(model.sandbox);
  const streams = [];
  try {
    for (let k = 0; k < processes; k++) streams.push(startStream(kafka.url, topic, topic, sandbox.url));
    const started = streams[0].startedAt;
    await until(`${n} listings`, async () => (await sandbox.stats()).created >= n, 180_000, async () => JSON.stringify(await sandbox.stats()));
    const wallMs = performance.now() - started;
    const cpu = streams.map((s) => cpuMs(s.child.pid));
    const joinedMs = Math.min(...streams.map((s) => s.joinedAt ?? Infinity)) - started;
    const summaries = [];
    for (const s of streams) summaries.push(await s.stop());
    const stats = await sandbox.stats();
    const published = summaries.reduce((sum, s) => sum + s.published, 0);
    if (published < n || stats.created !== n || stats.duplicates !== 0) {
      throw new Error(`${topic}: published ${published} of ${n}, the sandbox created ${stats.created} (${stats.duplicates} duplicates)`);
    }
    return {
      processes,
      wallMs: round(wallMs),
      msgsPerSec: (n / wallMs) * 1000,
      joinedMs: round(joinedMs),
      msgsPerSecAfterJoin: (n / (wallMs - joinedMs)) * 1000,
      cpuUsPerMsg: cpu.every((c) => c !== undefined) ? round((cpu.reduce((a, b) => a + b, 0) * 1000) / n, 1) : undefined,
      publishedBy: summaries.map((s) => s.published),
      peakConcurrency: summaries.map((s) => s.peak_concurrency),
      sandbox: { requests: stats.requests, replayed: stats.replayed, throttled: stats.throttled, overloaded: stats.overloaded, peakInFlight: stats.peak_in_flight },
    };
  } finally {
    for (const s of streams) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await sandbox.stop();
  }
}

/**
 * A drain, run again (fresh topic and group, up to 3 attempts) when a process ended on the mock cluster's answer to a
 * SyncGroup of members joining together: INVALID_REQUEST (a broker says REBALANCE_IN_PROGRESS), fatal to kafkajs.
 */
async function drainRetried(kafka, model, tsv, n, processes) {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...(await drainOnce(kafka, model, tsv, n, processes, attempt)), attempts: attempt };
    } catch (error) {
      if (attempt === 3 || !error.syncGroup) throw error;
      log(`  ${model.name}: ${processes} processes: a process crashed on the mock's SyncGroup answer (INVALID_REQUEST); again on a fresh topic`);
    }
  }
}

/** `listings publish` of the same N records (NDJSON) against a fresh sandbox of the model: the reference. */
async function publishOnce(model, ndjson, n) {
  const sandbox = await startSandbox(model.sandbox);
  try {
    const result = await runListings(['publish', ndjson, '--json', '--base-url', sandbox.url], { apiKey: SANDBOX_KEY });
    if (result.code !== 0) throw failure(`listings publish (${model.name})`, result);
    const stats = await sandbox.stats();
    if (stats.created !== n) throw new Error(`listings publish (${model.name}): the sandbox created ${stats.created} of ${n}`);
    return { rowsPerSec: (n / result.wallMs) * 1000, cpuUsPerRow: result.cpuMs === undefined ? undefined : round((result.cpuMs * 1000) / n, 1) };
  } finally {
    await sandbox.stop();
  }
}

/** Receives the sandbox's listing.created callbacks: the creation time of each SKU. */
async function startCallbackReceiver() {
  const createdAt = new Map();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body);
      createdAt.set(event.data.sku, Date.parse(event.created_at));
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}/`, createdAt, close: () => server.close() };
}

/**
 * Steady state: a joined stream, then `rate` messages/s for `seconds` from a kafkajs producer in this process, in
 * batches every 20 ms, each message's timestamp its send time. Latencies: the stream's summary (timestamp to
 * published) and the sandbox's callbacks (timestamp to created).
 */
async function steadyLatency(kafka, model, lines, rate, seconds) {
  const { Kafka, logLevel } = (await import('kafkajs')).default;
  const client = new Kafka({ brokers: kafka.url.split(','), clientId: 'bench-producer', logLevel: logLevel.NOTHING });
  const topic = 'steady';
  createTopic(kafka.url, topic);
  const receiver = await startCallbackReceiver();
  const sandbox = await startSandbox([...model.sandbox, '--webhook-url', receiver.url]);
  const producer = client.producer({ allowAutoTopicCreation: false });
  const stream = startStream(kafka.url, topic, topic, sandbox.url);
  try {
    await producer.connect();
    await until('the stream to join its group', () => stream.joinedAt !== undefined, 60_000, () => stream.stderr.slice(-500));
    const total = Math.min(lines.length, rate * seconds);
    const sentAt = new Map();
    const started = performance.now();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.ceil(((performance.now() - started) / 1000) * rate));
      if (due > sent) {
        const now = Date.now();
        const batch = lines.slice(sent, due).map((line) => ({ key: JSON.parse(line).sku, value: line, timestamp: String(now) }));
        for (const m of batch) sentAt.set(m.key, now);
        await producer.send({ topic, messages: batch });
        sent = due;
      }
      await sleep(20);
    }
    const producedPerSec = (total / (performance.now() - started)) * 1000;
    await until(`${total} listings`, async () => (await sandbox.stats()).created >= total, 60_000, async () => JSON.stringify(await sandbox.stats()));
    await until('every callback', () => receiver.createdAt.size >= total, 10_000, () => `${receiver.createdAt.size} of ${total}`);
    const summary = await stream.stop();
    const created = percentiles([...receiver.createdAt].map(([sku, at]) => at - sentAt.get(sku)));
    return { rate, seconds, messages: total, producedPerSec: round(producedPerSec), published: summary.published, stream: summary.latency_ms, created };
  } finally {
    if (stream.child.exitCode === null) stream.child.kill('SIGKILL');
    await producer.disconnect().catch(() => undefined);
    await sandbox.stop();
    receiver.close();
  }
}

/** Runs `body`, recording its figures into `entry`, or its failure as `entry.error` (the other figures still run). */
async function attempt(entry, what, body) {
  try {
    Object.assign(entry, await body());
  } catch (error) {
    entry.error = error instanceof Error ? error.message : String(error);
    log(`  ${what} not measured: ${entry.error}`);
  }
}

const fmt = (v) => round(v).toLocaleString('en-US');

/** ctx: streamMessages, streamRate, streamSeconds; catalogOf(rows, format) resolves a catalog's path. */
export async function benchStream(ctx, { catalogOf }) {
  const version = kcatVersion();
  if (version === undefined) {
    const skipped = 'kcat is not installed (apt-get install -y kcat): its mock cluster is the Kafka these figures need';
    log(`  stream skipped: ${skipped}`);
    return { skipped };
  }
  const n = ctx.streamMessages;
  const figures = { kcat: version, messages: n, partitions: 4, models: [], latency: { model: MODELS[0].name, sandbox: MODELS[0].sandbox.join(' ') } };
  const ndjson = await catalogOf(n, 'ndjson');
  const lines = readFileSync(ndjson, 'utf8').trimEnd().split('\n');
  const tsv = lines.map((line) => `${JSON.parse(line).sku}\t${line}\n`).join('');
  const kafka = await startKafka();
  try {
    for (const model of MODELS) {
      const entry = { name: model.name, sandbox: model.sandbox.join(' '), idealMsgsPerSec: model.ideal, idealHow: model.idealHow, publish: {}, runs: [] };
      figures.models.push(entry);
      await attempt(entry.publish, `${model.name}: listings publish`, () => publishOnce(model, ndjson, n));
      log(`  ${model.name}: listings publish ${fmt(entry.publish.rowsPerSec)} rows/s (${entry.publish.cpuUsPerRow ?? '?'} us CPU per row)`);
      for (const processes of [1, 2]) {
        const run = { processes };
        entry.runs.push(run);
        await attempt(run, `${model.name}: ${processes} stream process(es)`, () => drainRetried(kafka, model, tsv, n, processes));
        if (!run.error) {
          log(
            `  ${model.name}: ${processes} × listings stream: ${fmt(run.msgsPerSec)} msgs/s spawn to last creation (${round(run.msgsPerSec / model.ideal, 2)} of ideal ${fmt(model.ideal)}; ` +
              `${fmt(run.msgsPerSecAfterJoin)} msgs/s after joining in ${fmt(run.joinedMs)} ms), ${run.cpuUsPerMsg} us CPU per message, published ${run.publishedBy.join(' + ')}, peak concurrency ${run.peakConcurrency.join(', ')}`,
          );
        }
      }
    }
    const steadyLines = lines.slice(0, ctx.streamRate * ctx.streamSeconds);
    await attempt(figures.latency, 'steady-state latency', () => steadyLatency(kafka, MODELS[0], steadyLines, ctx.streamRate, ctx.streamSeconds));
    const l = figures.latency;
    if (!l.error) {
      log(`  steady ${l.rate} msgs/s for ${l.seconds} s (${l.producedPerSec}/s produced): timestamp to published p50 ${l.stream.p50} ms, p95 ${l.stream.p95} ms, p99 ${l.stream.p99} ms; to created (sandbox) p50 ${l.created.p50}, p95 ${l.created.p95}, p99 ${l.created.p99} ms`);
    }
  } finally {
    await kafka.stop();
  }
  return figures;
}

/** The figures of the section that could not be measured, as { 'stream/<what>': message }. */
export function streamErrors(figures) {
  const errors = {};
  for (const model of figures?.models ?? []) {
    if (model.publish.error) errors[`stream/${model.name}/publish`] = model.publish.error;
    for (const run of model.runs) if (run.error) errors[`stream/${model.name}/${run.processes}`] = run.error;
  }
  if (figures?.latency?.error) errors['stream/latency'] = figures.latency.error;
  return errors;
}
