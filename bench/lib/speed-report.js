/** The speed section's targets (issue 24) and its Markdown: each case one ratio, and the ramp's window over time. */
import { fmtRange, round } from './stats.js';

const x = (s) => (s ? fmtRange(s, 2) : 'n/a');

/** { figure, target, value, met, measured } for each case measured. */
export function speedTargets(speed) {
  if (!speed) return [];
  const t = [];
  const add = (figure, target, value, met, measured) => t.push({ figure, target, value, measured, met: value === undefined ? undefined : met });
  const { ramp, sweep, bare, outputs, commands } = speed;
  if (ramp) add('ramp: 2 s service, 2,000 rows, defaults (wall s)', '<= 10 s', ramp.wallMs, ramp.wallMs <= 10_000, ramp.wallMs === undefined ? 'n/a' : `${round(ramp.wallMs / 1000, 1)} s${ramp.wallRuns ? ` (${round(ramp.wallRuns.min / 1000, 1)}-${round(ramp.wallRuns.max / 1000, 1)}, median of 3)` : ''}; 90 % of the window after ${round(ramp.roundTripsTo90, 1)} round trips`);
  if (sweep) add('latency-only: defaults / best fixed --concurrency', '>= 0.9', sweep.ratio, sweep.ratio >= 0.9, sweep.ratio === undefined ? 'n/a' : `${sweep.ratioRuns ? x(sweep.ratioRuns) : round(sweep.ratio, 2)} (best: --concurrency ${sweep.bestConcurrency})`);
  if (bare) add('fast local service: defaults / bare undici Pool(64)', '>= 0.9', bare.ratio?.median, bare.ratio?.median >= 0.9, x(bare.ratio));
  if (outputs) add('all outputs (5 reports + journal) / none, wall', '<= 1.10', outputs.ratio?.median, outputs.ratio?.median <= 1.1, x(outputs.ratio));
  if (outputs?.cpuRatio) add('all outputs (5 reports + journal) / none, CPU (user + system)', '<= 1.10', outputs.cpuRatio.median, outputs.cpuRatio.median <= 1.1, x(outputs.cpuRatio));
  if (commands) {
    for (const [name, label] of [['version', '--version'], ['publishHelp', 'publish --help'], ['validateHelp', 'validate --help']]) {
      const ratio = commands[`${name}Ratio`];
      add(`start-up, \`listings ${label}\` / \`node -e 0\``, '<= 1.3', ratio?.median, ratio?.median <= 1.3, x(ratio));
    }
  }
  return t;
}

/** "## Speed" with the ramp's window over time, or nothing when the section did not run. */
export function speedMarkdown(speed) {
  const window = speed?.ramp?.window;
  if (!window) return [];
  return [
    '## Ramp: the limiter\'s window over time',
    '',
    `\`listings publish\` of ${speed.ramp.rows.toLocaleString('en-US')} rows, defaults, against \`listings sandbox --latency ${speed.ramp.roundTripMs}\` (no limit), from its \`limit\` events (\`--verbose --log-format json\`, at most one every 250 ms):`,
    '',
    '```',
    ...window.map((p) => `${round(p.atMs / 1000, 2).toFixed(2).padStart(6)} s  ${String(p.limit).padStart(4)}  ${'#'.repeat(Math.ceil(p.limit / 8))}`),
    '```',
    '',
  ];
}
