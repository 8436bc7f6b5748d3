/** The targets of issue 5, judged against the figures, and the Markdown / terminal table of the results. */
import { speedMarkdown, speedTargets } from './speed-report.js';
import { fmtRange, round } from './stats.js';

const pct = (v) => `${round(v * 100, 1)}%`;
const x = (s) => (s ? fmtRange(s, 2) : 'n/a');
const mb = (s) => (s ? fmtRange(s, 0, ' MB') : 'n/a');

/**
 * Each target as { figure, target, measured, value, met } (met is undefined when the figure is missing).
 * `value` is the number the target is judged on.
 */
export function judgeTargets(results) {
  const { publish, validate, memory, startup, latency, responder } = results.figures;
  const t = [];
  const add = (figure, target, value, met, measured) => t.push({ figure, target, value, measured, met: value === undefined ? undefined : met });
  add('publish rows/s, listings / bare reference client', '>= 0.75', publish?.ratio?.median, publish?.ratio?.median >= 0.75, x(publish?.ratio));
  add('validate rows/s, listings / bare csv-parse loop (CSV)', '>= 0.6', validate?.csv?.ratio?.median, validate?.csv?.ratio?.median >= 0.6, x(validate?.csv?.ratio));
  const mem = memory?.publish;
  add(
    `peak RSS, publish ${mem?.largeRows?.toLocaleString('en-US') ?? 'n/a'} rows`,
    '<= 150 MB',
    mem?.largePeakRssMb?.median,
    mem?.largePeakRssMb?.median <= 150,
    mb(mem?.largePeakRssMb),
  );
  add(
    `peak RSS growth, publish ${mem?.smallRows?.toLocaleString('en-US') ?? 'n/a'} -> ${mem?.largeRows?.toLocaleString('en-US') ?? 'n/a'} rows`,
    '<= 15%',
    mem?.growth,
    mem?.growth <= 0.15,
    mem?.growth === undefined ? 'n/a' : pct(mem.growth),
  );
  add('start-up, `listings --version` / `node -e 0`', '<= 2.0', startup?.versionRatio, startup?.versionRatio <= 2, startup ? round(startup.versionRatio, 2) : 'n/a');
  add(
    'nothing heavy loads for --version / --help',
    'none of: AWS SDK, sandbox, HTML report',
    startup?.heavyLoaded,
    startup?.heavyLoaded?.length === 0,
    startup ? (startup.heavyLoaded.length === 0 ? 'none' : startup.heavyLoaded.join(', ')) : 'n/a',
  );
  add(`latency-bound publish (sandbox --latency ${latency?.latencyMs ?? 20}) / ideal ${latency?.idealRowsPerSec ?? 3200}/s`, '>= 0.9', latency?.ratio?.median, latency?.ratio?.median >= 0.9, x(latency?.ratio));
  const fastest = Math.max(publish?.listingsRowsPerSec?.max ?? 0, publish?.bareRowsPerSec?.max ?? 0);
  const headroom = responder && fastest > 0 ? responder.autocannon.reqPerSec / fastest : undefined;
  add('responder capacity (autocannon) / fastest client', '>= 1.5 (never the bottleneck)', headroom, headroom >= 1.5, headroom === undefined ? 'n/a' : `${round(headroom, 2)}x`);
  if (results.figures.goodput || results.errors?.goodput) {
    for (const g of goodputTargets(results.figures.goodput)) add(g.figure, g.target, g.value, g.met, g.measured);
  }
  for (const s of speedTargets(results.figures.speed)) add(s.figure, s.target, s.value, s.met, s.measured);
  return t;
}

const share = (v) => (v === undefined ? 'n/a' : `${round(v * 100, 2)}%`);
const shareRange = (s) => (s ? (s.min === s.max ? share(s.median) : `${share(s.median)} (${share(s.min)}-${share(s.max)})`) : 'n/a');
const GOODPUT_MODELS = ['latency-only', 'rate-limited', 'capacity-queue', 'load-shedding', 'shards-rate-limited'];

/**
 * The goodput section's targets, each as { model, figure, target, value, met, measured }: goodput and rejected share
 * on the limited models, latency-only against curl --parallel-max 100, the defaults against the bare client.
 */
export function goodputTargets(goodput) {
  const t = [];
  const model = (name) => goodput?.models?.find((m) => m.name === name);
  const add = (name, figure, target, value, met, measured) => t.push({ model: name, figure, target, value, measured, met: value === undefined ? undefined : met });
  const latency = model('latency-only');
  const curl = latency?.peers?.parallel?.rowsPerSec?.median;
  const mine = latency?.rowsPerSec?.median;
  const vsCurl = mine !== undefined && curl !== undefined ? mine / curl : undefined;
  add('latency-only', 'goodput latency-only: listings rows/s / curl --parallel-max 100 rows/s', '>= 1.0', vsCurl, vsCurl >= 1, vsCurl === undefined ? 'n/a' : `${round(vsCurl, 2)}x (${fmtRange(latency.rowsPerSec)} vs ${fmtRange(latency.peers.parallel.rowsPerSec)})`);
  for (const name of GOODPUT_MODELS.slice(1)) {
    const m = model(name);
    const target = m?.target ?? { goodput: 0.9, rejected: name.startsWith('shards') ? 0.03 : 0.02 };
    add(name, `goodput ${name}: rows/s / ideal ${m ? round(m.idealRowsPerSec, 1).toLocaleString('en-US') : 'n/a'}/s`, `>= ${target.goodput}`, m?.goodput?.median, m?.goodput?.median >= target.goodput, x(m?.goodput));
    add(name, `goodput ${name}: requests rejected (429 + 503)`, `<= ${share(target.rejected)}`, m?.rejected?.median, m?.rejected?.median <= target.rejected, shareRange(m?.rejected));
  }
  const fast = goodput?.fastResponder;
  add('fast responder', 'goodput fast responder: listings (defaults) / bare client (64)', '>= 0.8', fast?.ratio?.median, fast?.ratio?.median >= 0.8, x(fast?.ratio));
  return t;
}

const metShort = (list) => {
  if (list.length === 0) return '';
  if (list.some((g) => g.met === undefined)) return 'not measured';
  const missed = list.filter((g) => !g.met);
  return missed.length === 0 ? 'met' : `**not met**`;
};

/** The "Goodput matrix": one row per service model (and peer), as [model, sandbox, rows, rows/s, ideal, goodput, rejected, rejected after 1 s, target, result]. */
export function goodputMatrix(results) {
  const goodput = results.figures.goodput;
  if (!goodput) return undefined;
  const targets = goodputTargets(goodput);
  const of = (name) => targets.filter((g) => g.model === name);
  const rows = [];
  const n = (v) => round(v, 1).toLocaleString('en-US');
  for (const m of goodput.models) {
    const label = m.shards > 1 ? `${m.name} (${m.shards} × --shard K/${m.shards})` : m.name;
    const target =
      m.name === 'latency-only' ? '>= curl --parallel-max 100 rows/s' : m.target ? `goodput >= ${m.target.goodput}, rejected <= ${share(m.target.rejected)}` : '';
    if (m.error) {
      rows.push([label, `\`${m.sandbox}\``, m.rows.toLocaleString('en-US'), 'not measured', n(m.idealRowsPerSec), 'n/a', 'n/a', 'n/a', target, `not measured: ${m.error}`]);
    } else {
      rows.push([
        label,
        `\`${m.sandbox}\``,
        m.rows.toLocaleString('en-US'),
        fmtRange(m.rowsPerSec),
        n(m.idealRowsPerSec),
        x(m.goodput),
        shareRange(m.rejected),
        shareRange(m.rejectedAfterFirstSecond),
        target,
        metShort(of(m.name)),
      ]);
    }
    const peers = m.peers;
    if (peers?.skipped) rows.push([`${m.name}: curl peers`, `\`${m.sandbox}\``, '', 'skipped', '', '', '', '', '', peers.skipped]);
    for (const [kind, what] of [
      ['xargs', 'xargs -P 16 + one curl per row'],
      ['parallel', 'curl --parallel --parallel-max 100 -K config'],
    ]) {
      const p = peers?.[kind];
      if (!p) continue;
      const ideal = p.parallel / 0.1;
      rows.push(
        p.error
          ? [`${m.name}: ${what}`, `\`${m.sandbox}\``, peers.rows.toLocaleString('en-US'), 'not measured', n(ideal), 'n/a', '', '', '', `not measured: ${p.error}`]
          : [`${m.name}: ${what}`, `\`${m.sandbox}\``, peers.rows.toLocaleString('en-US'), fmtRange(p.rowsPerSec), n(ideal), x({ ...p.rowsPerSec, median: p.rowsPerSec.median / ideal, min: p.rowsPerSec.min / ideal, max: p.rowsPerSec.max / ideal }), '', '', 'peer', ''],
      );
    }
  }
  const fast = goodput.fastResponder;
  if (fast) {
    rows.push(
      fast.error
        ? ['fast responder (defaults)', 'bench/responder.js', fast.rows.toLocaleString('en-US'), 'not measured', 'bare client', 'n/a', '', '', 'listings / bare >= 0.8', `not measured: ${fast.error}`]
        : [
            'fast responder (defaults)',
            'bench/responder.js',
            fast.rows.toLocaleString('en-US'),
            fmtRange(fast.listingsRowsPerSec),
            `bare client (64): ${fmtRange(fast.bareRowsPerSec)}`,
            `${x(fast.ratio)} of bare`,
            '',
            '',
            'listings / bare >= 0.8',
            metShort(of('fast responder')),
          ],
    );
  }
  const notes = [
    ...goodput.models.map((m) => `${m.name}: ideal ${n(m.idealRowsPerSec)} rows/s = ${m.idealHow}`),
    'curl peers: ideal = parallel requests / 0.1 s mean latency; 2,000 rows by default (--peer-rows), the same sandbox model',
    'rows/s = rows published / wall seconds of the publish process(es), spawn to exit (shards: first spawn to last exit); rejected = (429 + 503) / requests, from the sandbox; "after 1 s" leaves out the first second',
  ];
  return {
    head: ['model', 'sandbox', 'rows', 'rows/s', 'ideal rows/s', 'goodput', 'rejected', 'rejected after 1 s', 'target', 'result'],
    rows,
    notes,
  };
}

const r = (s) => (s ? fmtRange(s) : 'n/a');
const inverse = (s) => ({ median: 1 / s.median, min: 1 / s.max, max: 1 / s.min });

/** Every figure as rows of [figure, value, note]. */
export function figureRows(results) {
  const { publish, validate, memory, startup, latency, sandbox, peer, responder } = results.figures;
  const rows = [];
  const errors = results.errors ?? {};
  if (responder) rows.push(['responder, autocannon 64 connections', `${responder.autocannon.reqPerSec.toLocaleString('en-US')} req/s`, `${responder.autocannon.seconds} s, ${responder.autocannon.non2xx} non-2xx`]);
  if (publish) {
    rows.push([`publish ${publish.rows.toLocaleString('en-US')} rows, listings`, `${r(publish.listingsRowsPerSec)} rows/s`, 'report + journal on, concurrency 64']);
    rows.push([`publish ${publish.rows.toLocaleString('en-US')} rows, bare undici Pool client`, `${r(publish.bareRowsPerSec)} rows/s`, 'csv-parse + JSON.stringify + Pool(64)']);
    rows.push(['publish ratio listings / bare', x(publish.ratio), `ratio of medians ${round(publish.ratio.ofMedians, 2)}`]);
    if (publish.cpuRatio) {
      rows.push(['publish CPU time per row, listings / bare', x(publish.cpuRatio), `${r(publish.listingsCpuUsPerRow)} vs ${r(publish.bareCpuUsPerRow)} us (user + system)`]);
    }
  }
  if (validate) {
    for (const format of ['csv', 'ndjson']) {
      const v = validate[format];
      if (!v) continue;
      rows.push([`validate ${format.toUpperCase()} ${validate.rows.toLocaleString('en-US')} rows, listings`, `${r(v.listingsRowsPerSec)} rows/s`, `peak RSS ${mb(v.listingsPeakRssMb)}`]);
      rows.push([`validate ${format.toUpperCase()}, bare ${v.bare}`, `${r(v.bareRowsPerSec)} rows/s`, '']);
      rows.push([`validate ${format.toUpperCase()} ratio listings / bare`, x(v.ratio), `ratio of medians ${round(v.ratio.ofMedians, 2)}`]);
      if (v.cpuRatio) rows.push([`validate ${format.toUpperCase()} CPU time per row, bare / listings`, x(inverse(v.cpuRatio)), `${r(v.listingsCpuUsPerRow)} vs ${r(v.bareCpuUsPerRow)} us`]);
    }
  }
  if (memory) {
    for (const what of ['publish', 'validate']) {
      const m = memory[what];
      rows.push([`peak RSS ${what} ${m.smallRows.toLocaleString('en-US')} rows`, mb(m.smallPeakRssMb), '']);
      rows.push([`peak RSS ${what} ${m.largeRows.toLocaleString('en-US')} rows`, mb(m.largePeakRssMb), m.growth === undefined ? '' : `growth ${pct(m.growth)}`]);
    }
  }
  if (startup) {
    rows.push(['start-up `node -e 0`', fmtRange(startup.nodeMs, 0, ' ms'), `${startup.repeats} runs`]);
    rows.push(['start-up `listings --version`', fmtRange(startup.versionMs, 0, ' ms'), `ratio ${round(startup.versionRatio, 2)}`]);
    rows.push(['start-up `listings --help`', fmtRange(startup.helpMs, 0, ' ms'), `ratio ${round(startup.helpRatio, 2)}`]);
    rows.push(['modules loaded by --version', `${startup.loads.version.modules}`, `packages: ${startup.loads.version.packages.join(', ') || 'none'}`]);
  }
  if (latency) {
    rows.push([`latency-bound publish ${latency.rows.toLocaleString('en-US')} rows, sandbox --latency ${latency.latencyMs}`, `${r(latency.rowsPerSec)} rows/s`, `ideal ${latency.idealRowsPerSec}/s, ratio ${x(latency.ratio)}`]);
    rows.push([`the same, listings against bench/responder.js --latency ${latency.latencyMs} (no validation)`, `${r(latency.responderRowsPerSec)} rows/s`, `ratio ${x(latency.responderRatio)}`]);
    rows.push([`the same, bare client against bench/responder.js --latency ${latency.latencyMs}`, `${r(latency.bareRowsPerSec)} rows/s`, `ratio ${x(latency.bareRatio)}: what a client that reads CSV allows here`]);
    if (latency.autocannonReqPerSec) {
      rows.push([`autocannon (64 connections) against bench/responder.js --latency ${latency.latencyMs}`, `${r(latency.autocannonReqPerSec)} req/s`, `ratio ${x(latency.autocannonRatio)}: the ceiling of the server's timers and loopback`]);
    }
  }
  if (sandbox) {
    rows.push([`sandbox (validates): listings publish ${sandbox.rows.toLocaleString('en-US')} rows`, `${r(sandbox.publishRowsPerSec)} rows/s`, '']);
    rows.push(['sandbox (validates): autocannon 64 connections', `${sandbox.autocannon.reqPerSec.toLocaleString('en-US')} req/s`, `${sandbox.autocannon.non2xx} non-2xx`]);
  }
  if (peer) {
    rows.push(
      peer.skipped
        ? ['naive peer: xargs -P 16 + curl', 'skipped', peer.skipped]
        : [`naive peer: xargs -P 16 + curl, ${peer.rows.toLocaleString('en-US')} rows`, `${round(peer.rowsPerSec).toLocaleString('en-US')} rows/s`, 'one process per row'],
    );
  }
  if (results.figures.stream) rows.push(...streamRows(results.figures.stream));
  for (const [section, message] of Object.entries(errors)) rows.push([`${section}: NOT MEASURED`, 'error', message]);
  return rows;
}

/** The stream section's rows: backlog drains by 1 and 2 processes per model, then the steady-state latency. */
function streamRows(stream) {
  if (stream.skipped) return [['listings stream (Kafka)', 'skipped', stream.skipped]];
  const n = (v) => round(v).toLocaleString('en-US');
  const rows = [];
  for (const m of stream.models) {
    const publish = m.publish.rowsPerSec;
    const cpu = (us) => (us === undefined ? '' : `, ${us} us CPU per message`);
    rows.push([`listings publish ${stream.messages.toLocaleString('en-US')} NDJSON rows, sandbox \`${m.sandbox}\``, publish === undefined ? 'not measured' : `${n(publish)} rows/s`, `the stream's reference${cpu(m.publish.cpuUsPerRow)}`]);
    for (const run of m.runs) {
      const what = `listings stream, ${stream.messages.toLocaleString('en-US')}-message backlog on ${stream.partitions} partitions, ${run.processes} process${run.processes > 1 ? 'es' : ''}, sandbox \`${m.sandbox}\``;
      if (run.error) continue;
      const vsPublish = publish === undefined ? '' : `, ${round(run.msgsPerSec / publish, 2)} of publish`;
      rows.push([
        what,
        `${n(run.msgsPerSec)} msgs/s`,
        `${round(run.msgsPerSec / m.idealMsgsPerSec, 2)} of ideal ${n(m.idealMsgsPerSec)}${vsPublish}; joined after ${n(run.joinedMs)} ms, ${n(run.msgsPerSecAfterJoin)} msgs/s after${cpu(run.cpuUsPerMsg)}; peak concurrency ${run.peakConcurrency.join(' + ')}`,
      ]);
    }
  }
  const l = stream.latency;
  if (l && !l.error) {
    const p = (q) => `p50 ${n(q.p50)} ms, p95 ${n(q.p95)} ms, p99 ${n(q.p99)} ms`;
    rows.push([`listings stream end-to-end latency, ${l.rate} msgs/s for ${l.seconds} s, sandbox \`${l.sandbox}\``, p(l.stream), `message timestamp to published (the stream's summary); to created, from the sandbox's callbacks: ${p(l.created)}`]);
  }
  return rows;
}

const cell = (v) => String(v).replace(/\|/g, '\\|');
const mdTable = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
const metText = (met) => (met === undefined ? 'not measured' : met ? 'met' : '**not met**');

/** RESULTS.md */
export function markdown(results) {
  const m = results.machine;
  return [
    '# Benchmark results',
    '',
    `Run \`${results.command}\` (${results.mode}) on ${m.date.slice(0, 10)}: ${m.cores} cores (${m.cpu}), ${round(m.memoryMb / 1024, 1)} GB, Node ${m.node}, ${m.platform}, commit ${m.commit ?? 'unknown'}; load average at start ${m.loadAverage.join(' / ')}; pinning: ${m.pinning ?? 'none'}.`,
    `Medians of ${results.config.repeats} alternating runs, with min-max; ratios are medians of the ratios of side-by-side pairs. Every run is a separate process timed from spawn to exit. Regenerate with \`npm run bench\` (\`-- --quick\` for the small version).`,
    '',
    '## Targets',
    '',
    ...mdTable(['figure', 'target', 'measured', ''], results.targets.map((t) => [t.figure, t.target, t.measured, metText(t.met)])),
    '',
    ...goodputMarkdown(results),
    ...speedMarkdown(results.figures.speed),
    '## All figures',
    '',
    ...mdTable(['figure', 'value', 'note'], figureRows(results)),
    '',
  ].join('\n');
}

function goodputMarkdown(results) {
  const matrix = goodputMatrix(results);
  if (!matrix) return [];
  return [
    '## Goodput matrix',
    '',
    `\`listings publish CATALOG --json\` with its defaults (concurrency learned up to 512, pace learned from 429s) against a fresh \`listings sandbox\` per run; medians of ${results.figures.goodput.repeats} run(s) with min-max.`,
    '',
    ...mdTable(matrix.head, matrix.rows),
    '',
    ...matrix.notes.map((note) => `- ${note}`),
    '',
  ];
}

/** The same tables for the terminal. */
export function terminalTable(results) {
  const lines = [];
  const width = (rows, i) => Math.max(...rows.map((row) => String(row[i]).length));
  const print = (rows) => {
    const widths = rows[0].map((_, i) => width(rows, i));
    for (const row of rows) lines.push(row.map((v, i) => String(v).padEnd(widths[i])).join('  ').trimEnd());
  };
  print([['figure', 'target', 'measured', ''], ...results.targets.map((t) => [t.figure, t.target, t.measured, metText(t.met).replace(/\*/g, '')])]);
  lines.push('');
  print([['figure', 'value', 'note'], ...figureRows(results)]);
  const matrix = goodputMatrix(results);
  if (matrix) {
    lines.push('', 'Goodput matrix');
    print([matrix.head, ...matrix.rows.map((row) => row.map((v) => String(v).replace(/\*|`/g, '')))]);
    for (const note of matrix.notes) lines.push(`  ${note}`);
  }
  return lines.join('\n');
}
