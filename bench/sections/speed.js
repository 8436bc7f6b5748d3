/**
 * (9) speed (issue 24): each case a ratio measured in one run, side by side.
 * - ramp: a 2 s service with no limit (`sandbox --latency 2000`), 2,000 rows, defaults: wall time (median of three),
 *   round trips to 90 % of the final window (throughput is window / 2 s there), and the limiter's window over time
 *   (`limit` events of a fourth run, with --verbose).
 * - sweep: a latency-only service (`sandbox --latency 80-120`, served on one core, so latency grows with load):
 *   the defaults against the best fixed `--concurrency` of a sweep, in alternating pairs (the median of their ratios).
 * - bare: the fast local responder, the defaults as a user gets them (a journal, no report) against the bare undici
 *   Pool(64) client (no journal, no report), alternating.
 * - outputs: the fast local responder, `--concurrency 64`, every output (csv, json, ndjson, JUnit, HTML reports and
 *   the journal) against none (`--no-journal`), alternating: wall time, and CPU time (user + system) where GNU time is.
 * - commands: start-up of `--version`, `publish --help`, `validate --help`, `help publish` and `publish` (the full
 *   CLI) against `node -e 0`, interleaved; wall time and CPU time.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { BIN, NODE, failure, listingsEnv, log, runListings, scratch } from '../lib/context.js';
import { measure, spawnTracked, wallOnce } from '../lib/proc.js';
import { pairedRatio, round, summary } from '../lib/stats.js';
import { bareOnce, publishOnce } from './publish.js';
import { SANDBOX_KEY, startSandbox } from './servers.js';

export const SPEED_CASES = ['ramp', 'sweep', 'bare', 'outputs', 'commands'];

const fmt = (v) => round(v).toLocaleString('en-US');
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** One `listings publish` with the defaults against a fresh sandbox of `model`; checked like the goodput runs. */
async function sandboxRun(model, catalog, rows, extra = []) {
  const sandbox = await startSandbox(model);
  try {
    const result = await runListings(['publish', catalog, '--json', '--base-url', sandbox.url, ...extra], { apiKey: SANDBOX_KEY });
    if (result.code !== 0) throw failure(`listings publish ${extra.join(' ')}`, result);
    const stats = await sandbox.stats();
    if (stats.created !== rows || stats.duplicates !== 0) throw new Error(`the sandbox created ${stats.created} of ${rows} listings, ${stats.duplicates} duplicates`);
    return { wallMs: result.wallMs, rowsPerSec: (rows / result.wallMs) * 1000 };
  } finally {
    await sandbox.stop();
  }
}

/**
 * `listings publish --verbose --log-format json` against a fresh sandbox, its stderr read line by line (a request
 * event per row is more than the measured runs keep): wall time and the `limit` events, [{ atMs, limit }] since
 * `run_start`.
 */
async function windowRun(model, catalog, rows) {
  const sandbox = await startSandbox(model);
  const work = scratch();
  try {
    const started = performance.now();
    const child = spawnTracked(NODE, [BIN, 'publish', catalog, '--json', '--verbose', '--log-format', 'json', '--base-url', sandbox.url], {
      cwd: work.dir,
      env: listingsEnv(work.dir, SANDBOX_KEY),
    });
    child.stdout.resume();
    const exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
    let start;
    const window = [];
    let tail = '';
    for await (const line of createInterface({ input: child.stderr, crlfDelay: Infinity })) {
      tail = line;
      if (!line.startsWith('{')) continue;
      const event = JSON.parse(line);
      const at = Date.parse(event.ts);
      if (event.event === 'run_start') start = at;
      if (event.event === 'limit' && start !== undefined) window.push({ atMs: at - start, limit: event.limit });
    }
    const code = await exited;
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`listings publish --verbose exited with ${code}: ${tail.slice(0, 300)}`);
    const stats = await sandbox.stats();
    if (stats.created !== rows || stats.duplicates !== 0) throw new Error(`the sandbox created ${stats.created} of ${rows} listings, ${stats.duplicates} duplicates`);
    return { wallMs, window };
  } finally {
    work.remove();
    await sandbox.stop();
  }
}

/**
 * The wall time of 2,000 rows at 2 s, as a user runs them (no --verbose: its two events a row, and this process
 * reading them, weigh on the client's CPU when 1,700 requests leave at once), median of three; then one run with
 * --verbose for the window over time.
 */
async function ramp(catalogOf) {
  const rows = 2000;
  const roundTripMs = 2000;
  const model = ['--latency', String(roundTripMs)];
  const catalog = await catalogOf(rows, 'csv');
  const plain = [];
  for (let i = 0; i < 3; i++) {
    plain.push((await sandboxRun(model, catalog, rows)).wallMs);
    log(`  ramp ${i + 1}/3: ${fmt(plain.at(-1))} ms`);
  }
  const run = await windowRun(model, catalog, rows);
  const { window } = run;
  const final = Math.max(4, ...window.map((p) => p.limit));
  const at90 = window.find((p) => p.limit >= 0.9 * final)?.atMs;
  const wall = summary(plain);
  const figures = {
    rows,
    roundTripMs,
    wallMs: wall.median,
    wallRuns: wall,
    verboseWallMs: run.wallMs,
    finalWindow: final,
    roundTripsTo90: at90 === undefined ? undefined : at90 / roundTripMs,
    target: { wallMs: 10_000 },
    window,
  };
  log(`  ramp: ${rows} rows at ${roundTripMs} ms in ${fmt(wall.median)} ms (${fmt(wall.min)}-${fmt(wall.max)}; ${fmt(run.wallMs)} ms with --verbose); 90 % of the final window (${final}) after ${round(figures.roundTripsTo90 ?? NaN, 2)} round trips`);
  log(`  window over time: ${window.map((p) => `${round(p.atMs / 1000, 1)}s:${p.limit}`).join(' ')}`);
  return figures;
}

async function sweep(catalogOf, rows, pairs) {
  const model = ['--latency', '80-120'];
  const catalog = await catalogOf(rows, 'csv');
  const fixed = {};
  for (const concurrency of [64, 128, 256, 512]) {
    fixed[concurrency] = (await sandboxRun(model, catalog, rows, ['--concurrency', String(concurrency)])).rowsPerSec;
    log(`  sweep: --concurrency ${concurrency}: ${fmt(fixed[concurrency])} rows/s`);
  }
  const [bestConcurrency] = Object.entries(fixed).sort((a, b) => b[1] - a[1])[0];
  // The defaults against the best fixed value in alternating pairs: on a shared machine one run of either swings by
  // a tenth, as much as the distance to the target.
  const runs = { defaults: [], best: [] };
  for (let i = 0; i < pairs; i++) {
    for (const who of i % 2 === 0 ? ['defaults', 'best'] : ['best', 'defaults']) {
      const { rowsPerSec } = await sandboxRun(model, catalog, rows, who === 'best' ? ['--concurrency', bestConcurrency] : []);
      runs[who].push(rowsPerSec);
      log(`  sweep ${i + 1}/${pairs} ${who === 'best' ? `--concurrency ${bestConcurrency}` : 'defaults'}: ${fmt(rowsPerSec)} rows/s`);
    }
  }
  const ratio = pairedRatio(runs.defaults, runs.best);
  log(`  sweep: defaults / best fixed (--concurrency ${bestConcurrency}): ${round(ratio.median, 2)} (${round(ratio.min, 2)}-${round(ratio.max, 2)})`);
  return {
    rows,
    sandbox: model.join(' '),
    fixed,
    bestConcurrency: Number(bestConcurrency),
    bestRowsPerSec: summary(runs.best),
    defaultsRowsPerSec: summary(runs.defaults),
    ratio: ratio.median,
    ratioRuns: ratio,
    target: 0.9,
  };
}

async function bare(responder, catalogOf, rows, repeats) {
  const catalog = await catalogOf(rows, 'csv');
  const runs = { listings: [], bare: [] };
  for (let i = 0; i < repeats; i++) {
    for (const who of i % 2 === 0 ? ['listings', 'bare'] : ['bare', 'listings']) {
      const run = who === 'listings' ? await publishOnce(responder, catalog, rows, { concurrency: null, report: false }) : await bareOnce(responder, catalog, rows);
      runs[who].push(run.rowsPerSec);
      log(`  bare ${i + 1}/${repeats} ${who.padEnd(8)} ${fmt(run.rowsPerSec)} rows/s`);
    }
  }
  return { rows, listingsRowsPerSec: summary(runs.listings), bareRowsPerSec: summary(runs.bare), ratio: pairedRatio(runs.listings, runs.bare), target: 0.9 };
}

/** `listings publish --concurrency 64` against the responder with every output, or none. */
async function outputsRun(responder, catalog, rows, on) {
  await responder.ensure();
  const before = await responder.posts();
  const result = await runListings((dir) => [
    'publish',
    catalog,
    '--concurrency',
    '64',
    '--base-url',
    responder.url,
    ...(on ? ['csv', 'json', 'ndjson', 'xml', 'html'].flatMap((ext) => ['--report', join(dir, `report.${ext}`)]) : ['--no-journal']),
  ]);
  if (result.code !== 0) throw failure(`listings publish (outputs ${on ? 'on' : 'off'})`, result);
  const sent = (await responder.posts()) - before;
  if (sent !== rows) throw new Error(`listings publish exited 0 but the responder received ${sent} of ${rows} rows`);
  return result;
}

async function outputs(responder, catalogOf, rows, repeats) {
  const catalog = await catalogOf(rows, 'csv');
  const runs = { on: [], off: [] };
  const cpu = { on: [], off: [] };
  for (let i = 0; i < repeats; i++) {
    for (const which of i % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
      const result = await outputsRun(responder, catalog, rows, which === 'on');
      runs[which].push(result.wallMs);
      if (result.cpuMs !== undefined) cpu[which].push(result.cpuMs);
      log(`  outputs ${i + 1}/${repeats} ${which.padEnd(3)} ${fmt(result.wallMs)} ms${result.cpuMs === undefined ? '' : `, CPU ${fmt(result.cpuMs)} ms`}`);
    }
  }
  // CPU time (user + system, where GNU time is there): on a shared machine far steadier than wall time.
  const cpuFigures = cpu.on.length === repeats && cpu.off.length === repeats ? { onCpuMs: summary(cpu.on), offCpuMs: summary(cpu.off), cpuRatio: pairedRatio(cpu.on, cpu.off) } : {};
  return { rows, onMs: summary(runs.on), offMs: summary(runs.off), ratio: pairedRatio(runs.on, runs.off), ...cpuFigures, target: 1.1 };
}

/**
 * Start-up against `node -e 0`, interleaved: wall time of each run alone, and CPU time (user + system, GNU time)
 * of a second run of each, steadier on a loaded machine. `publish` alone (a usage error, exit 2, once the full CLI
 * and the publish command are loaded) is the start-up of the full CLI that a help no longer takes.
 */
async function commands(repeats) {
  const work = scratch();
  try {
    const env = listingsEnv(work.dir);
    const cases = {
      node: [['-e', '0'], 0],
      version: [[BIN, '--version'], 0],
      publishHelp: [[BIN, 'publish', '--help'], 0],
      validateHelp: [[BIN, 'validate', '--help'], 0],
      helpPublish: [[BIN, 'help', 'publish'], 0],
      publishStart: [[BIN, 'publish'], 2],
    };
    for (const [args] of Object.values(cases)) wallOnce(NODE, args, { env, cwd: work.dir });
    const wall = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    const cpu = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    for (let i = 0; i < repeats; i++) {
      for (const [name, [args, code]] of Object.entries(cases)) {
        const result = wallOnce(NODE, args, { env, cwd: work.dir });
        const timed = await measure(NODE, args, { env, cwd: work.dir });
        for (const ran of [result, timed]) if (ran.code !== code) throw new Error(`node ${args.join(' ')} exited with ${ran.code}: ${ran.stderr.slice(0, 300)}`);
        wall[name].push(result.wallMs);
        if (timed.cpuMs !== undefined) cpu[name].push(timed.cpuMs);
      }
    }
    const figures = { repeats, nodeMs: summary(wall.node), target: 1.3 };
    if (cpu.node.length > 0) figures.nodeCpuMs = summary(cpu.node);
    for (const name of Object.keys(cases).filter((name) => name !== 'node')) {
      figures[`${name}Ms`] = summary(wall[name]);
      figures[`${name}Ratio`] = pairedRatio(wall[name], wall.node);
      // GNU time counts in 10 ms steps: the ratio of the means is steadier than the median of the pairs.
      if (cpu.node.length > 0) figures[`${name}CpuRatio`] = { ...pairedRatio(cpu[name], cpu.node), ofMeans: mean(cpu[name]) / mean(cpu.node) };
    }
    const ratios = (key, of) => ['version', 'publishHelp', 'validateHelp', 'helpPublish', 'publishStart'].map((name) => `${name} ${round(figures[`${name}${key}`]?.[of], 2)}x`).join(', ');
    log(`  commands: node -e 0 ${round(figures.nodeMs.median)} ms; wall (median of pairs) ${ratios('Ratio', 'median')}`);
    if (cpu.node.length > 0) log(`  commands: node -e 0 ${round(mean(cpu.node))} ms CPU; CPU (ratio of means) ${ratios('CpuRatio', 'ofMeans')}`);
    return figures;
  } finally {
    work.remove();
  }
}

/** The cases of `only` (all by default); a case that fails carries `error`, the others still run. */
export async function benchSpeed(ctx, { catalogOf, responder, only = SPEED_CASES }) {
  const figures = {};
  const run = async (name, body) => {
    if (!only.includes(name)) return;
    log(`  ${name} ...`);
    try {
      figures[name] = await body();
    } catch (error) {
      figures[name] = { error: error instanceof Error ? error.message : String(error) };
      log(`  ${name} not measured: ${figures[name].error}`);
    }
  };
  await run('ramp', () => ramp(catalogOf));
  await run('sweep', () => sweep(catalogOf, ctx.goodputRows, Math.min(ctx.repeats, 3)));
  await run('bare', () => bare(responder, catalogOf, Math.min(100_000, ctx.rows), Math.min(ctx.repeats, 3)));
  await run('outputs', () => outputs(responder, catalogOf, Math.min(200_000, ctx.rows), Math.min(ctx.repeats, 3)));
  await run('commands', () => commands(ctx.startupRepeats));
  return figures;
}

/** The cases that could not be measured, as { 'speed/<case>': message }. */
export function speedErrors(figures) {
  return Object.fromEntries(Object.entries(figures ?? {}).filter(([, f]) => f?.error).map(([name, f]) => [`speed/${name}`, f.error]));
}
