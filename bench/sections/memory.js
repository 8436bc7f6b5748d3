/** (3) memory: peak RSS of publish and validate at two sizes; the growth between them shows streaming works. */
import { log } from '../lib/context.js';
import { round, summary } from '../lib/stats.js';
import { publishOnce } from './publish.js';
import { validateOnce } from './validate.js';

/**
 * `large` holds the peak RSS summaries already measured at the large size by the publish and validate sections
 * (so the largest runs are not repeated); the small size is measured here.
 */
export async function benchMemory(ctx, responder, small, large) {
  const runs = { publish: [], validate: [] };
  const times = ctx.memoryRepeats;
  for (let i = 0; i < times; i++) {
    runs.publish.push((await publishOnce(responder, small.csv, small.rows)).maxRssKb / 1024);
    runs.validate.push((await validateOnce(small.csv, small.rows)).maxRssKb / 1024);
    log(`  memory ${small.rows} rows ${i + 1}/${times}: publish ${round(runs.publish.at(-1))} MB, validate ${round(runs.validate.at(-1))} MB`);
  }
  const figure = (smallRuns, largeSummary) => {
    const smallSummary = summary(smallRuns);
    const growth = largeSummary ? largeSummary.median / smallSummary.median - 1 : undefined;
    return { smallRows: small.rows, largeRows: large.rows, smallPeakRssMb: smallSummary, largePeakRssMb: largeSummary, growth };
  };
  return {
    publish: figure(runs.publish, large.publish),
    validate: figure(runs.validate, large.validate),
  };
}
