/**
 * `npm run bench`: measures `listings` against the best a bare program reaches on this machine, side by side.
 * See bench/README.md for what each figure means and the options.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureCatalog, DEFAULT_DATA_DIR } from './generate.js';
import { BENCH_DIR, log, machine, useSnapshot } from './lib/context.js';
import { formatProfile } from './lib/cpuprofile.js';
import { hasGnuTime } from './lib/proc.js';
import { pinClients } from './lib/pinning.js';
import { judgeTargets, markdown, terminalTable } from './lib/report.js';
import { benchGoodput, goodputErrors } from './sections/goodput.js';
import { benchLatency, benchSandbox } from './sections/latency.js';
import { benchMemory } from './sections/memory.js';
import { benchPeer } from './sections/peer.js';
import { benchProfile } from './sections/profile.js';
import { benchPublish } from './sections/publish.js';
import { loadTest, startResponder } from './sections/servers.js';
import { SPEED_CASES, benchSpeed, speedErrors } from './sections/speed.js';
import { benchStartup } from './sections/startup.js';
import { benchStream, streamErrors } from './sections/stream.js';
import { benchValidate } from './sections/validate.js';

const SECTIONS = ['responder', 'publish', 'validate', 'memory', 'startup', 'latency', 'sandbox', 'peer', 'goodput', 'stream', 'speed'];

const { values, positionals } = parseArgs({
  allowNegative: true,
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    rows: { type: 'string' },
    repeats: { type: 'string' },
    'startup-repeats': { type: 'string' },
    'latency-rows': { type: 'string' },
    'peer-rows': { type: 'string' },
    'goodput-rows': { type: 'string' },
    'stream-messages': { type: 'string' },
    'load-seconds': { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    pin: { type: 'boolean', default: true },
    snapshot: { type: 'boolean', default: false },
    out: { type: 'string' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log(`usage: npm run bench -- [CASE...] [--quick] [--rows N] [--repeats N] [--startup-repeats N] [--latency-rows N]
       [--peer-rows N] [--goodput-rows N] [--stream-messages N] [--load-seconds N] [--only ${SECTIONS.join(',')}] [--profile] [--snapshot] [--no-pin]
       [--out DIR] [--data-dir DIR]
  full run: 1,000,000 rows, 5 repeats; --quick: 100,000 rows, 3 repeats. Writes DIR/results.json and DIR/RESULTS.md
  (DIR defaults to bench/). Catalogs are generated once under bench/data/.
  CASE: one or more of the speed section's cases (${SPEED_CASES.join(', ')}): only those run.`);
  process.exit(0);
}

const count = (name, fallback) => {
  if (values[name] === undefined) return fallback;
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a whole number >= 1`);
    process.exit(2);
  }
  return n;
};

const quick = values.quick;
const rows = count('rows', quick ? 100_000 : 1_000_000);
const repeats = count('repeats', quick ? 3 : 5);
const ctx = {
  rows,
  smallRows: Math.max(1, Math.round(rows / 10)),
  repeats,
  smallRepeats: Math.min(repeats, quick ? 1 : 3),
  memoryRepeats: Math.min(repeats, quick ? 2 : 3),
  sandboxRepeats: Math.min(repeats, quick ? 1 : 3),
  startupRepeats: count('startup-repeats', quick ? 20 : 40),
  latencyRows: count('latency-rows', 20_000),
  peerRows: count('peer-rows', 2_000),
  // goodput: rows of the 20,000-row service models (the others scale with it: sections/goodput.js), 1 run each in --quick
  goodputRows: count('goodput-rows', 20_000),
  goodputRepeats: Math.min(repeats, quick ? 1 : 3),
  // stream: the backlog drained by 1 and 2 processes; then the steady state, streamRate messages/s for streamSeconds
  streamMessages: count('stream-messages', quick ? 5_000 : 20_000),
  streamRate: 500,
  streamSeconds: quick ? 5 : 10,
  loadSeconds: count('load-seconds', quick ? 3 : 5),
};
for (const name of positionals) {
  if (!SPEED_CASES.includes(name)) {
    console.error(`unknown case ${name} (cases: ${SPEED_CASES.join(', ')})`);
    process.exit(2);
  }
}
const only = positionals.length > 0 ? new Set(['speed']) : values.only ? new Set(values.only.split(',').map((s) => s.trim())) : new Set(SECTIONS);
for (const name of only) {
  if (!SECTIONS.includes(name)) {
    console.error(`--only: unknown section ${name} (sections: ${SECTIONS.join(', ')})`);
    process.exit(2);
  }
}
// A run of named cases leaves the record (bench/results.json, RESULTS.md) alone unless told otherwise.
const outDir = values.out ? resolve(values.out) : positionals.length > 0 ? join(BENCH_DIR, 'tmp', 'cases') : BENCH_DIR;
const dataDir = values['data-dir'] ? resolve(values['data-dir']) : DEFAULT_DATA_DIR;

// A private copy of the build, when others may rebuild the working tree during the run.
const snapshot = values.snapshot ? useSnapshot() : undefined;

// Servers on the last core, everything measured on the others (see lib/pinning.js); --no-pin leaves it to the scheduler.
const pinning = pinClients(values.pin);

const results = {
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  mode: quick ? 'quick' : values.rows ? 'custom' : 'full',
  machine: {
    ...machine(),
    peakRssFrom: hasGnuTime ? '/usr/bin/time %M' : '/proc/<pid>/status VmHWM, polled',
    pinning: pinning ? `servers on CPU ${pinning.server}, clients on CPU ${pinning.clients} (taskset)` : 'none',
    ...(snapshot ? { measured: 'a snapshot of dist/ taken at the start' } : {}),
  },
  config: ctx,
  figures: {},
  errors: {},
};

log(`listings benchmark (${results.mode}): ${rows.toLocaleString('en-US')} rows, ${repeats} repeats, ${results.machine.cores} cores, Node ${results.machine.node}`);
const started = Date.now();

log('catalogs ...');
// A run of named cases needs none of the sections' catalogs (each case makes its own).
const catalogs = positionals.length > 0 ? {} : {
  large: { rows, csv: await ensureCatalog(rows, 'csv', dataDir), ndjson: await ensureCatalog(rows, 'ndjson', dataDir) },
  small: { rows: ctx.smallRows, csv: await ensureCatalog(ctx.smallRows, 'csv', dataDir) },
  latency: await ensureCatalog(ctx.latencyRows, 'csv', dataDir),
  peer: await ensureCatalog(ctx.peerRows, 'ndjson', dataDir),
};

async function section(name, body) {
  if (!only.has(name)) return;
  log(`${name} ...`);
  try {
    results.figures[name] = await body();
  } catch (error) {
    results.errors[name] = error instanceof Error ? error.message : String(error);
    log(`  ${name} failed: ${results.errors[name]}`);
  }
}

const responder = await startResponder();
try {
  await section('responder', async () => ({ url: responder.url, autocannon: await loadTest(responder.url, ctx.loadSeconds) }));
  await section('publish', () => benchPublish(ctx, responder, catalogs.large.csv, rows));
  await section('validate', () => benchValidate(ctx, catalogs.large, rows));
  await section('memory', () =>
    benchMemory(ctx, responder, catalogs.small, {
      rows,
      publish: results.figures.publish?.listingsPeakRssMb,
      validate: results.figures.validate?.csv?.listingsPeakRssMb,
    }),
  );
  await section('startup', () => benchStartup(ctx));
  await section('latency', () => benchLatency(ctx, catalogs.latency, ctx.latencyRows));
  await section('sandbox', () => benchSandbox(ctx, catalogs.latency, ctx.latencyRows));
  await section('peer', () => benchPeer(ctx, responder, catalogs.peer, ctx.peerRows));
  await section('goodput', () =>
    benchGoodput(ctx, { catalogOf: (n, format) => ensureCatalog(n, format, dataDir), responder, fastRows: Math.min(100_000, rows), fastRepeats: Math.min(repeats, 3) }),
  );
  await section('stream', () => benchStream(ctx, { catalogOf: (n, format) => ensureCatalog(n, format, dataDir) }));
  await section('speed', () =>
    benchSpeed(ctx, { catalogOf: (n, format) => ensureCatalog(n, format, dataDir), responder, ...(positionals.length > 0 ? { only: positionals } : {}) }),
  );
  // A model (or peer) that could not be measured is an error of the run, as a failed section is.
  Object.assign(results.errors, goodputErrors(results.figures.goodput), streamErrors(results.figures.stream), speedErrors(results.figures.speed));
  if (values.profile) {
    log('profile ...');
    try {
      results.profile = await benchProfile(responder, values.quick || rows <= 100_000 ? catalogs.large : catalogs.small);
    } catch (error) {
      results.errors.profile = error instanceof Error ? error.message : String(error);
    }
  }
} finally {
  results.responderRestarts = responder.restarts;
  await responder.stop();
}

results.elapsedSeconds = Math.round((Date.now() - started) / 1000);
results.targets = judgeTargets(results);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
let md = markdown(results);
if (results.profile) {
  md += ['', '## Where the time goes (node --cpu-prof, one run each)', '', ...['publish', 'validate'].flatMap((what) => [
    `### listings ${what}, ${results.profile.rows.toLocaleString('en-US')} rows (${results.profile[what].wallMs} ms wall)`,
    '',
    '```',
    ...formatProfile(results.profile[what]),
    '```',
    '',
  ])].join('\n');
}
writeFileSync(join(outDir, 'RESULTS.md'), md);
console.log(terminalTable(results));
console.log(`\n${results.elapsedSeconds} s; wrote ${join(outDir, 'results.json')} and ${join(outDir, 'RESULTS.md')}`);
process.exitCode = Object.keys(results.errors).length === 0 ? 0 : 1;
