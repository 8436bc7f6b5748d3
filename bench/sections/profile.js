/** Where the time goes: one `listings publish` and one `listings validate` under `node --cpu-prof`, summarised. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, failure, log, runListings, scratch } from '../lib/context.js';
import { summariseProfile } from '../lib/cpuprofile.js';

async function profiled(args, top) {
  const out = scratch('listings-bench-prof-');
  try {
    const result = await runListings(args, { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', out.dir] });
    if (result.code !== 0) throw failure(`listings ${typeof args === 'function' ? 'publish' : args[0]} --cpu-prof`, result);
    const file = readdirSync(out.dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('no .cpuprofile was written');
    return { wallMs: Math.round(result.wallMs), ...summariseProfile(join(out.dir, file), { root: ROOT, top }) };
  } finally {
    out.remove();
  }
}

export async function benchProfile(responder, catalogs, top = 20) {
  log('  profiling listings publish ...');
  await responder.ensure();
  const publish = await profiled(
    (dir) => ['publish', catalogs.csv, '--concurrency', '64', '--report', join(dir, 'report.csv'), '--base-url', responder.url],
    top,
  );
  log('  profiling listings validate ...');
  const validate = await profiled(['validate', catalogs.csv], top);
  return { rows: catalogs.rows, publish, validate };
}
