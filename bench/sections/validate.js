/** (2) validate: `listings validate` vs a bare csv-parse loop (CSV) and a bare readline + JSON.parse loop (NDJSON). */
import { join } from 'node:path';
import { BENCH_DIR, NODE, failure, log, runListings } from '../lib/context.js';
import { measure } from '../lib/proc.js';
import { pairedRatio, round, summary } from '../lib/stats.js';
import { cpuFigures, runFigures } from './publish.js';

export async function validateOnce(catalog, rows) {
  const result = await runListings(['validate', catalog]);
  if (result.code !== 0) throw failure(`listings validate ${catalog}`, result);
  return runFigures(result, rows);
}

async function bareOnce(format, catalog, rows) {
  const result = await measure(NODE, [join(BENCH_DIR, 'bare-read.js'), format, catalog]);
  if (result.code !== 0) throw failure('bare read', result);
  const counted = JSON.parse(result.stdout.trim().split('\n').at(-1)).rows;
  if (counted !== rows) throw new Error(`bare ${format} loop read ${counted} of ${rows} rows`);
  return runFigures(result, rows);
}

export async function benchValidate(ctx, catalogs, rows) {
  const figures = { rows };
  for (const format of ['csv', 'ndjson']) {
    const runs = { listings: [], bare: [] };
    for (let i = 0; i < ctx.repeats; i++) {
      const order = i % 2 === 0 ? ['listings', 'bare'] : ['bare', 'listings'];
      for (const who of order) {
        const run = who === 'listings' ? await validateOnce(catalogs[format], rows) : await bareOnce(format, catalogs[format], rows);
        runs[who].push(run);
        log(`  validate ${format} ${i + 1}/${ctx.repeats} ${who.padEnd(8)} ${round(run.rowsPerSec).toLocaleString('en-US')} rows/s, peak RSS ${round(run.maxRssKb / 1024)} MB`);
      }
    }
    const rate = (list) => list.map((r) => r.rowsPerSec);
    figures[format] = {
      bare: format === 'csv' ? 'csv-parse loop' : 'readline + JSON.parse loop',
      listingsRowsPerSec: summary(rate(runs.listings)),
      bareRowsPerSec: summary(rate(runs.bare)),
      ratio: pairedRatio(rate(runs.listings), rate(runs.bare)),
      listingsPeakRssMb: summary(runs.listings.map((r) => r.maxRssKb / 1024)),
      ...cpuFigures(runs.listings, runs.bare),
    };
  }
  return figures;
}
