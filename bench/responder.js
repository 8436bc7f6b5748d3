/**
 * The benchmark's stand-in for the service: a minimal node:http server that reads each request body and answers
 * one fixed listing with 201. It does no validation, so it is never the bottleneck (see the autocannon figure).
 * Prints its URL on the first line of stdout. GET /__stats answers { posts, bytes, maxInFlight } counted since start.
 * `--latency MS` delays every answer (a diagnostic twin of `listings sandbox --latency`, without its validation).
 *
 *   node bench/responder.js [--port 0] [--workers 1] [--latency 0]
 */
import cluster from 'node:cluster';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, workers: { type: 'string', default: '1' }, latency: { type: 'string', default: '0' } },
});
const latencyMs = Number(values.latency);
const workers = Math.max(1, Number(values.workers));

// The answer echoes the request's SKU, as the contract's does (a client checks it). The SKU is found in the body's
// text, not by parsing it: the responder stays far cheaper than the client it serves.
const SKU_IN_BODY = /"sku":("(?:[^"\\]|\\.)*")/;
const AFTER_SKU = ',"status":"ready","title":"Benchmark listing","item_specifics":["Brand","Colour","Size"]}';

let posts = 0;
let bytes = 0;
let inFlight = 0;
let maxInFlight = 0;

function answer(res, body) {
  inFlight--;
  const listing = Buffer.from(`{"sku":${SKU_IN_BODY.exec(body)?.[1] ?? '""'}${AFTER_SKU}`);
  res.writeHead(201, { 'content-type': 'application/json', 'content-length': String(listing.length) });
  res.end(listing);
}

function serve(port) {
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      if (++inFlight > maxInFlight) maxInFlight = inFlight;
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => {
        bytes += Buffer.byteLength(chunk);
        body += chunk;
      });
      req.on('end', () => {
        posts++;
        if (latencyMs > 0) setTimeout(answer, latencyMs, res, body);
        else answer(res, body);
      });
      return;
    }
    if (req.url === '/__stats') {
      if (cluster.isWorker) {
        res.writeHead(500).end('stats are per worker; run with --workers 1');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ posts, bytes, maxInFlight }));
      return;
    }
    req.resume();
    res.writeHead(404).end();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => {
    if (cluster.isPrimary) console.log(`http://127.0.0.1:${server.address().port}`);
  });
  return server;
}

if (workers === 1) {
  serve(Number(values.port));
} else if (cluster.isPrimary) {
  // Workers share the primary's listening socket, so they all need the same port: choose one first.
  const probe = http.createServer().listen(Number(values.port), '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => {
      for (let i = 0; i < workers; i++) cluster.fork({ BENCH_RESPONDER_PORT: String(port) });
      console.log(`http://127.0.0.1:${port}`);
    });
  });
} else {
  serve(Number(process.env.BENCH_RESPONDER_PORT));
}

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
