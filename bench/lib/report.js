/** The targets of issue 5, judged against the figures, and the Markdown / terminal table of the results. */
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
  return t;
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
  for (const [section, message] of Object.entries(errors)) rows.push([`${section}: NOT MEASURED`, 'error', message]);
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
    '## All figures',
    '',
    ...mdTable(['figure', 'value', 'note'], figureRows(results)),
    '',
  ].join('\n');
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
  return lines.join('\n');
}
