/**
 * Diagnostic preload: `node --expose-gc --import ./bench/lib/heap-trace.js bin/listings.js ...` appends, every
 * BENCH_HEAP_EVERY_MS (default 2,000), one line `ms rssMb heapUsedMb(after a full GC) externalMb` to the file
 * named by BENCH_HEAP_FILE. Live memory that grows with the rows read shows here, apart from V8's lazy collection.
 */
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';

const file = process.env.BENCH_HEAP_FILE;
const gc = globalThis.gc;
if (file && typeof gc === 'function') {
  const mb = (bytes) => Math.round(bytes / 2 ** 20);
  setInterval(() => {
    gc();
    const m = process.memoryUsage();
    appendFileSync(file, `${Math.round(performance.now())} ${mb(m.rss)} ${mb(m.heapUsed)} ${mb(m.external + m.arrayBuffers)}\n`);
  }, Number(process.env.BENCH_HEAP_EVERY_MS ?? 2000)).unref();
}
