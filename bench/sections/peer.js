/** (6) a naive peer: `xargs -P 16` running one `curl` per row, as a user might script it instead. */
import { spawnSync } from 'node:child_process';
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { log, scratch } from '../lib/context.js';
import { measure } from '../lib/proc.js';
import { round } from '../lib/stats.js';

/** The first `rows` rows of an NDJSON catalog as flat request bodies (the bare client's body), one per line. */
export async function flatBodies(ndjson, rows) {
  const lines = [];
  for await (const line of createInterface({ input: createReadStream(ndjson), crlfDelay: Infinity })) {
    if (lines.length >= rows) break;
    const { title: _title, ...flat } = JSON.parse(line);
    lines.push(JSON.stringify(flat));
  }
  return `${lines.join('\n')}\n`;
}

/** `curl --version`'s first line's version, or undefined when curl is not installed. */
export function curlVersion() {
  const curl = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  return curl.status === 0 ? curl.stdout.split(' ')[1] : undefined;
}

/**
 * `xargs -P parallel` running one `curl` per line of `bodies` (a file of flat JSON bodies) against URL/v1/listings,
 * measured; stdout holds one HTTP status per row.
 */
export function xargsCurl(url, bodies, { apiKey = 'bench-key', parallel = 16 } = {}) {
  const script =
    `xargs -P ${parallel} -d '\\n' -I{} curl -s -o /dev/null -w '%{http_code}\\n' -X POST ` +
    `-H 'content-type: application/json' -H "authorization: Bearer $KEY" --data-binary {} "$URL/v1/listings" < "$BODIES"`;
  return measure('sh', ['-c', script], { env: { ...process.env, URL: url, BODIES: bodies, KEY: apiKey } });
}

export async function benchPeer(ctx, responder, ndjson, rows) {
  const curl = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  if (curl.status !== 0) {
    return { skipped: 'curl is not installed (apt-get install -y curl to measure this figure)' };
  }
  const work = scratch();
  try {
    const bodies = join(work.dir, 'bodies.ndjson');
    writeFileSync(bodies, await flatBodies(ndjson, rows));
    await responder.ensure();
    const before = await responder.posts();
    const result = await xargsCurl(responder.url, bodies);
    const sent = (await responder.posts()) - before;
    const created = result.stdout.split('\n').filter((code) => code === '201').length;
    if (result.code !== 0 || sent !== rows || created !== rows) {
      throw new Error(`xargs + curl: exit ${result.code}, ${sent} received and ${created} answered 201 of ${rows}`);
    }
    const rowsPerSec = (rows / result.wallMs) * 1000;
    log(`  naive peer (xargs -P 16 curl): ${round(rowsPerSec).toLocaleString('en-US')} rows/s`);
    return { rows, parallel: 16, curl: curl.stdout.split(' ')[1], rowsPerSec };
  } finally {
    work.remove();
  }
}
