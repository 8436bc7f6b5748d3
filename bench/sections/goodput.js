/**
 * (7) goodput: `listings publish` with its DEFAULT settings (no --concurrency, no --rate: it learns both) against
 * `listings sandbox` modelling a real service (latency, a rate limit, a capacity with a queue, a load shedder), and
 * how close it comes to what each model allows at best: rows/s against the ideal, and the share of its requests the
 * service turned away (429 + 503). Beside them: two curl peers on the latency-only model, four shards against one
 * rate limit, and the defaults against the fast local responder (vs the bare client).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { failure, log, runListings, scratch } from '../lib/context.js';
import { measure } from '../lib/proc.js';
import { pairedRatio, round, summary } from '../lib/stats.js';
import { curlVersion, flatBodies, xargsCurl } from './peer.js';
import { bareOnce, publishOnce } from './publish.js';
import { SANDBOX_KEY, startSandbox } from './servers.js';

/** The default --max-concurrency of `listings publish`: the ceiling of the learned concurrency. */
const DEFAULT_MAX_CONCURRENCY = 512;
const SERVICE_TARGET = { goodput: 0.9, rejected: 0.02 };

/**
 * The service models. `share`: rows as a share of --goodput-rows (default 20,000), so that each run takes some 10-50 s
 * at the ideal. `ideal`: rows/s the model allows at best.
 */
export const MODELS = [
  {
    name: 'latency-only',
    sandbox: ['--latency', '80-120'],
    share: 1,
    ideal: DEFAULT_MAX_CONCURRENCY / 0.1,
    idealHow: `${DEFAULT_MAX_CONCURRENCY} (default --max-concurrency) / 0.1 s mean latency`,
    peers: true,
  },
  {
    name: 'rate-limited',
    sandbox: ['--latency', '50-150', '--rate-limit', '400', '--retry-after', '1'],
    share: 1,
    ideal: 400,
    idealHow: 'the rate limit, 400/s',
    target: SERVICE_TARGET,
  },
  {
    name: 'capacity-queue',
    sandbox: ['--latency', '200-300', '--capacity', '128'],
    share: 0.5,
    ideal: 128 / 0.25,
    idealHow: '128 served at once / 0.25 s mean latency',
    target: SERVICE_TARGET,
  },
  {
    name: 'load-shedding',
    sandbox: ['--latency', '20-50', '--capacity', '8', '--queue', '8'],
    share: 0.25,
    ideal: 8 / 0.035,
    idealHow: '8 served at once / 0.035 s mean latency',
    target: SERVICE_TARGET,
  },
  // A share of requests pushed back at random, whatever the pace (a flaky gateway, a per-item limit): slowing down
  // cures none of it. No target of their own: compare their goodput with latency-only's, the same service without
  // the noise (the ideal counts the requests the noise costs).
  {
    name: 'random-503',
    sandbox: ['--latency', '50-150', '--fail-rate', '0.05', '--fail-status', '503', '--seed', '7'],
    share: 0.5,
    ideal: (DEFAULT_MAX_CONCURRENCY / 0.1) * 0.95,
    idealHow: `${DEFAULT_MAX_CONCURRENCY} (default --max-concurrency) / 0.1 s mean latency x 0.95 (5 % of requests answered 503 at random)`,
  },
  {
    name: 'random-429',
    sandbox: ['--latency', '50-150', '--fail-rate', '0.05', '--fail-status', '429', '--seed', '7'],
    share: 0.5,
    ideal: (DEFAULT_MAX_CONCURRENCY / 0.1) * 0.95,
    idealHow: `${DEFAULT_MAX_CONCURRENCY} (default --max-concurrency) / 0.1 s mean latency x 0.95 (5 % of requests answered 429 at random)`,
  },
  {
    name: 'shards-rate-limited',
    sandbox: ['--latency', '50-150', '--rate-limit', '400'],
    share: 1,
    shards: 4,
    ideal: 400,
    idealHow: 'the rate limit, 400/s, shared by 4 processes',
    target: { goodput: 0.9, rejected: 0.03 },
  },
];

/** Rows of a model for --goodput-rows N. */
export const modelRows = (model, goodputRows) => Math.max(1, Math.round(goodputRows * model.share));

/** The --json summary a publish printed on stdout (one object; the last line holding one, to be safe). */
function publishSummary(stdout) {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    const line = text.split('\n').reverse().find((l) => l.trim().startsWith('{'));
    if (line === undefined) throw new Error(`no --json summary on stdout: ${text.slice(-200)}`);
    return JSON.parse(line);
  }
}

/** (throttled + overloaded) / requests between two stats snapshots (from zero when `from` is absent). */
function rejectedShare(to, from = { requests: 0, throttled: 0, overloaded: 0 }) {
  const requests = to.requests - from.requests;
  if (requests <= 0) return undefined;
  return (to.throttled - from.throttled + to.overloaded - from.overloaded) / requests;
}

/**
 * One run of a model: a fresh sandbox (it remembers the SKUs it created), `listings publish CATALOG --json` with the
 * defaults (or --shard K/N processes started together, each in its own working directory), then the sandbox's stats.
 * Wall time is from the first spawn to the last exit. Throws when a row is missing or sent twice.
 */
async function modelOnce(model, catalog, rows) {
  const sandbox = await startSandbox(model.sandbox);
  try {
    const shards = model.shards ?? 1;
    const args = (k) => ['publish', catalog, '--json', '--base-url', sandbox.url, ...(shards > 1 ? ['--shard', `${k + 1}/${shards}`] : [])];
    let early;
    let done = false;
    const started = performance.now();
    // The sandbox's counters one second in: the share rejected after it leaves out the first probing of the limits.
    const sample = sleep(1000).then(async () => {
      if (!done) early = await sandbox.stats().catch(() => undefined);
    });
    const results = await Promise.all(Array.from({ length: shards }, (_, k) => runListings(args(k), { apiKey: SANDBOX_KEY })));
    const wallMs = shards === 1 ? results[0].wallMs : performance.now() - started;
    done = true;
    await sample;
    const stats = await sandbox.stats();
    const what = (k) => `listings publish${shards > 1 ? ` --shard ${k + 1}/${shards}` : ''} (${model.name})`;
    results.forEach((result, k) => {
      if (result.code !== 0) throw failure(what(k), result);
    });
    const summaries = results.map((result) => publishSummary(result.stdout));
    const sum = (key) => summaries.reduce((total, s) => total + (Number(s[key]) || 0), 0);
    const published = sum('published');
    if (published !== rows) throw new Error(`${what(0)} published ${published} of ${rows} rows`);
    if (stats.created !== rows || stats.duplicates !== 0) {
      throw new Error(`${model.name}: the sandbox created ${stats.created} of ${rows} listings, ${stats.duplicates} duplicates`);
    }
    return {
      wallMs,
      rowsPerSec: (published / wallMs) * 1000,
      rejected: rejectedShare(stats),
      rejectedAfterFirstSecond: early ? rejectedShare(stats, early) : undefined,
      sandbox: {
        requests: stats.requests,
        throttled: stats.throttled,
        overloaded: stats.overloaded,
        peakInFlight: stats.peak_in_flight,
        peakQueued: stats.peak_queued,
      },
      client: {
        requests: sum('requests'),
        throttled: sum('throttled'),
        overloaded: sum('overloaded'),
        timeouts: sum('timeouts'),
        peakConcurrency: Math.max(...summaries.map((s) => Number(s.peak_concurrency) || 0)),
      },
    };
  } finally {
    await sandbox.stop();
  }
}

/** Quoted for a curl config file. */
const curlQuote = (text) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** A curl config (-K) of one block per body, `next` between them: URL, body, headers, status on stdout. */
function curlConfig(url, bodies, apiKey) {
  const block = (body) =>
    [
      `url = ${curlQuote(`${url}/v1/listings`)}`,
      `data = ${curlQuote(body)}`,
      'header = "content-type: application/json"',
      `header = ${curlQuote(`authorization: Bearer ${apiKey}`)}`,
      'output = "/dev/null"',
      'write-out = "%{http_code}\\n"',
    ].join('\n');
  return `${bodies.map(block).join('\nnext\n')}\n`;
}

/**
 * A curl peer on a fresh sandbox of the model: `xargs` (one curl per row, 16 at once) or one `curl --parallel
 * --parallel-max 100 -K config`. Checked like the tool: every row answered 201 and created once.
 */
async function curlPeerOnce(model, kind, bodiesFile, bodies) {
  const sandbox = await startSandbox(model.sandbox);
  const work = scratch();
  try {
    let result;
    if (kind === 'xargs') {
      result = await xargsCurl(sandbox.url, bodiesFile, { apiKey: SANDBOX_KEY, parallel: 16 });
    } else {
      const config = join(work.dir, 'curl.config');
      writeFileSync(config, curlConfig(sandbox.url, bodies, SANDBOX_KEY));
      // --no-progress-meter: -s does not silence the progress meter of --parallel (curl 7.88).
      result = await measure('curl', ['--parallel', '--parallel-max', '100', '--no-progress-meter', '-K', config]);
    }
    const stats = await sandbox.stats();
    const rows = bodies.length;
    const created = result.stdout.split('\n').filter((code) => code === '201').length;
    if (result.code !== 0 || created !== rows || stats.created !== rows || stats.duplicates !== 0) {
      throw new Error(
        `${kind} curl peer (${model.name}): exit ${result.code}, ${created} answered 201, sandbox created ${stats.created} of ${rows} (${stats.duplicates} duplicates)`,
      );
    }
    return (rows / result.wallMs) * 1000;
  } finally {
    work.remove();
    await sandbox.stop();
  }
}

const fmt = (v) => round(v).toLocaleString('en-US');
const pct = (v) => (v === undefined ? 'n/a' : `${round(v * 100, 2)}%`);
const summaryOf = (runs, key) => (runs.every((r) => r[key] !== undefined) ? summary(runs.map((r) => r[key])) : undefined);

/** The curl peers of the latency-only model, on the same sandbox model, `peerRows` rows. */
async function curlPeers(model, ndjson, peerRows, repeats) {
  const version = curlVersion();
  if (version === undefined) {
    const skipped = 'curl is not installed (apt-get install -y curl to measure these figures)';
    log(`  curl peers skipped: ${skipped}`);
    return { skipped };
  }
  const work = scratch();
  try {
    const text = await flatBodies(ndjson, peerRows);
    const bodiesFile = join(work.dir, 'bodies.ndjson');
    writeFileSync(bodiesFile, text);
    const bodies = text.split('\n').filter((line) => line !== '');
    const peers = { curl: version, rows: bodies.length };
    for (const [kind, parallel] of [
      ['xargs', 16],
      ['parallel', 100],
    ]) {
      const runs = [];
      try {
        for (let i = 0; i < repeats; i++) {
          runs.push(await curlPeerOnce(model, kind, bodiesFile, bodies));
          log(`  ${model.name}: ${kind === 'xargs' ? 'xargs -P 16 + curl' : 'curl --parallel-max 100'} ${i + 1}/${repeats}: ${fmt(runs.at(-1))} rows/s`);
        }
        peers[kind] = { parallel, rowsPerSec: summary(runs), ideal: parallel / 0.1 };
      } catch (error) {
        peers[kind] = { parallel, error: error instanceof Error ? error.message : String(error) };
        log(`  ${peers[kind].error}`);
      }
    }
    return peers;
  } finally {
    work.remove();
  }
}

/** `listings publish` with the defaults vs the bare client (64 connections) against the fast responder, alternating. */
async function fastResponder(responder, catalog, rows, repeats) {
  const runs = { listings: [], bare: [] };
  for (let i = 0; i < repeats; i++) {
    const order = i % 2 === 0 ? ['listings', 'bare'] : ['bare', 'listings'];
    for (const who of order) {
      const run = who === 'listings' ? await publishOnce(responder, catalog, rows, { concurrency: null, report: false }) : await bareOnce(responder, catalog, rows);
      runs[who].push(run.rowsPerSec);
      log(`  fast responder (defaults) ${i + 1}/${repeats} ${who.padEnd(8)} ${fmt(run.rowsPerSec)} rows/s`);
    }
  }
  return {
    rows,
    listingsRowsPerSec: summary(runs.listings),
    bareRowsPerSec: summary(runs.bare),
    ratio: pairedRatio(runs.listings, runs.bare),
    target: 0.8,
  };
}

/**
 * ctx: goodputRows, goodputRepeats, peerRows; catalogOf(rows, format) resolves a catalog's path; responder: the fast
 * local responder. A model whose runs fail carries `error` (its figure not measured); the others still run.
 */
export async function benchGoodput(ctx, { catalogOf, responder, fastRows = 100_000, fastRepeats = 3 }) {
  const figures = { rows: ctx.goodputRows, repeats: ctx.goodputRepeats, models: [] };
  for (const model of MODELS) {
    const rows = modelRows(model, ctx.goodputRows);
    const entry = {
      name: model.name,
      sandbox: model.sandbox.join(' '),
      rows,
      shards: model.shards ?? 1,
      idealRowsPerSec: model.ideal,
      idealHow: model.idealHow,
      ...(model.target ? { target: model.target } : {}),
    };
    figures.models.push(entry);
    try {
      const catalog = await catalogOf(rows, 'csv');
      const runs = [];
      for (let i = 0; i < ctx.goodputRepeats; i++) {
        const run = await modelOnce(model, catalog, rows);
        runs.push(run);
        log(
          `  ${model.name} ${i + 1}/${ctx.goodputRepeats}: ${fmt(run.rowsPerSec)} rows/s of ideal ${fmt(model.ideal)} (${round(run.rowsPerSec / model.ideal, 2)}), ` +
            `rejected ${pct(run.rejected)} (after 1 s ${pct(run.rejectedAfterFirstSecond)}); sandbox ${run.sandbox.requests} requests, ` +
            `${run.sandbox.throttled} 429, ${run.sandbox.overloaded} 503, peak in flight ${run.sandbox.peakInFlight}; client peak concurrency ${run.client.peakConcurrency}, ${run.client.timeouts} timeouts`,
        );
      }
      Object.assign(entry, {
        rowsPerSec: summary(runs.map((r) => r.rowsPerSec)),
        goodput: summary(runs.map((r) => r.rowsPerSec / model.ideal)),
        rejected: summaryOf(runs, 'rejected'),
        rejectedAfterFirstSecond: summaryOf(runs, 'rejectedAfterFirstSecond'),
        runs,
      });
    } catch (error) {
      entry.error = error instanceof Error ? error.message : String(error);
      log(`  ${model.name} not measured: ${entry.error}`);
    }
    if (model.peers) {
      entry.peers = await curlPeers(model, await catalogOf(ctx.peerRows, 'ndjson'), ctx.peerRows, ctx.goodputRepeats);
    }
  }
  try {
    figures.fastResponder = await fastResponder(responder, await catalogOf(fastRows, 'csv'), fastRows, fastRepeats);
  } catch (error) {
    figures.fastResponder = { rows: fastRows, target: 0.8, error: error instanceof Error ? error.message : String(error) };
    log(`  fast responder (defaults) not measured: ${figures.fastResponder.error}`);
  }
  return figures;
}

/** The figures of the section that could not be measured, as { 'goodput/<name>': message }. */
export function goodputErrors(figures) {
  const errors = {};
  for (const model of figures?.models ?? []) {
    if (model.error) errors[`goodput/${model.name}`] = model.error;
    for (const kind of ['xargs', 'parallel']) {
      if (model.peers?.[kind]?.error) errors[`goodput/${model.name}/curl-${kind}`] = model.peers[kind].error;
    }
  }
  if (figures?.fastResponder?.error) errors['goodput/fast-responder'] = figures.fastResponder.error;
  return errors;
}
