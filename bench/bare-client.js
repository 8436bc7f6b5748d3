/**
 * The bare reference client: what a program that does nothing else can reach on this machine. It reads the CSV
 * with csv-parse, builds one flat request body per row and sends it with an undici Pool, `concurrency` requests
 * in flight. No validation, no retries, no report, no journal. Prints one JSON line:
 * { rows, ok, failed, ms, rowsPerSec }.
 *
 *   node bench/bare-client.js <catalog.csv> <base-url> [--concurrency 64]
 */
import { createReadStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse';
import { Pool } from 'undici';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { concurrency: { type: 'string', default: '64' } } });
const [file, baseUrl] = positionals;
if (!file || !baseUrl) {
  console.error('usage: node bench/bare-client.js <catalog.csv> <base-url> [--concurrency 64]');
  process.exit(2);
}
const concurrency = Number(values.concurrency);
const started = performance.now();
const url = new URL(baseUrl);
const path = `${url.pathname.replace(/\/+$/, '')}/v1/listings`;
const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
const headers = {
  authorization: `Bearer ${process.env.LISTINGS_API_KEY ?? 'bench-key'}`,
  'content-type': 'application/json',
  accept: 'application/json',
};

let rows = 0;
let ok = 0;
let failed = 0;
let inFlight = 0;
let wake;

const settle = () => {
  inFlight--;
  if (wake) {
    const resume = wake;
    wake = undefined;
    resume();
  }
};

async function send(body) {
  try {
    const res = await pool.request({ path, method: 'POST', headers, body });
    await res.body.text();
    if (res.statusCode >= 200 && res.statusCode < 300) ok++;
    else failed++;
  } catch {
    failed++;
  } finally {
    settle();
  }
}

const parser = createReadStream(file).pipe(parse({ columns: true }));
for await (const r of parser) {
  rows++;
  const body = JSON.stringify({
    images_source: r.images_source.split('|'),
    sku: r.sku,
    marketplace: r.marketplace,
    merchant_location_key: r.merchant_location_key,
    fulfillment_policy_id: r.fulfillment_policy_id,
    payment_policy_id: r.payment_policy_id,
    return_policy_id: r.return_policy_id,
    overrides: { condition: r['overrides.condition'] },
  });
  while (inFlight >= concurrency) await new Promise((resolve) => (wake = resolve));
  inFlight++;
  void send(body);
}
while (inFlight > 0) await new Promise((resolve) => (wake = resolve));
await pool.close();
const ms = performance.now() - started;
console.log(JSON.stringify({ rows, ok, failed, ms: Math.round(ms), rowsPerSec: Math.round((rows / ms) * 1000) }));
process.exitCode = failed === 0 ? 0 : 1;
