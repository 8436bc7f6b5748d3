/** The servers the figures run against: the bench responder, the `listings sandbox`, and autocannon to load them. */
import { join } from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { BENCH_DIR, BIN, NODE, listingsEnv, scratch } from '../lib/context.js';
import { startServer } from '../lib/proc.js';

/** The key `listings sandbox` accepts by default. */
export const SANDBOX_KEY = 'sandbox-key';

/** A realistic flat request body, as the bare client sends it. */
export const SAMPLE_BODY = JSON.stringify({
  images_source: [1, 2, 3].map((k) => `https://images.example.com/catalog/0000001/view-${k}.jpg`),
  sku: 'SKU-0000001',
  marketplace: 'EBAY_US',
  merchant_location_key: 'warehouse-berlin-01',
  fulfillment_policy_id: 'fp-100001',
  payment_policy_id: 'pp-200001',
  return_policy_id: 'rp-300001',
  overrides: { condition: 'NEW' },
});

async function getJson(url) {
  const res = await request(url);
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`GET ${url}: HTTP ${res.statusCode}`);
  }
  return res.body.json();
}

/**
 * Starts bench/responder.js; `posts()` reads how many POSTs it has answered. `ensure()` starts a new one (a new
 * URL) when the process has gone, e.g. ended from outside on a shared machine; `restarts` counts those.
 */
export async function startResponder(args = []) {
  const start = () => startServer(NODE, [join(BENCH_DIR, 'responder.js'), '--port', '0', ...args]);
  let server = await start();
  const responder = {
    restarts: 0,
    get url() {
      return server.url;
    },
    posts: async () => (await getJson(`${server.url}/__stats`)).posts,
    alive: () => server.child.exitCode === null && server.child.signalCode === null,
    ensure: async () => {
      if (responder.alive()) return;
      responder.restarts++;
      server = await start();
    },
    stop: () => server.stop(),
  };
  return responder;
}

/** Starts `listings sandbox --port 0 ...args` with a clean config home; `stats()` reads /_sandbox/stats. */
export async function startSandbox(args = []) {
  const work = scratch('listings-bench-sandbox-');
  const server = await startServer(NODE, [BIN, 'sandbox', '--port', '0', ...args], { cwd: work.dir, env: listingsEnv(work.dir, SANDBOX_KEY) });
  return {
    ...server,
    stats: () => getJson(`${server.url}/_sandbox/stats`),
    stop: async () => {
      await server.stop();
      work.remove();
    },
  };
}

/** POSTs the sample body with autocannon for `seconds` over 64 connections: { reqPerSec, non2xx, errors }. */
export async function loadTest(baseUrl, seconds, apiKey = 'bench-key') {
  const result = await autocannon({
    url: `${baseUrl}/v1/listings`,
    connections: 64,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: SAMPLE_BODY,
  });
  return {
    reqPerSec: Math.round(result.requests.average),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds,
  };
}
