import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { hasKcat, NO_KCAT, produce, startKafkaMock, type KafkaMock } from '../helpers/kafka-mock.js';
import { products, startStream, until } from '../helpers/stream-process.js';
import type { StreamWorker } from '../helpers/stream-workers.js';
import { parseExposition, type Exposition } from '../helpers/prometheus-text.js';
import { tempDir } from '../helpers/tmp.js';

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

async function get(url: string, init?: RequestInit): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
}

describe.skipIf(!kcat)('listings stream --admin-listen: /healthz, /readyz and /metrics of a worker, scraped during a run', () => {
  let mock: KafkaMock;
  let service: SandboxProcess | undefined;
  let worker: StreamWorker | undefined;

  beforeAll(async () => {
    mock = await startKafkaMock(1);
  });

  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    await service?.stop();
    await mock?.stop();
  });

  it('counters match the sandbox; readiness turns false while the service is down; health stays up', async () => {
    const cwd = tempDir('stream-metrics-');
    service = await startSandboxProcess(['--latency', '1-4']);
    const topic = 'metrics';
    await produce(mock.bootstrap, topic, products(0, 300, 'M'));
    worker = startStream(mock, topic, 'metrics', service.url, cwd, ['--admin-listen', '127.0.0.1:0', '--give-up-after', '120']);
    const running = worker;
    let base = '';
    await until('the admin address on stderr', () => {
      base = /health, readiness and metrics at (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(running.stderr())?.[1] ?? '';
      return base !== '';
    }, 30_000, () => running.stderr());
    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, text: 'ok\n' });
    await until('ready', async () => (await get(`${base}/readyz`)).status === 200, 40_000, async () => `${(await get(`${base}/readyz`)).text}\n${running.stderr()}`);
    let scrape: Exposition | undefined;
    await until('300 published in the metrics', async () => {
      scrape = parseExposition((await get(`${base}/metrics`)).text);
      return scrape.value('listings_messages_published_total') === 300;
    }, 40_000, () => JSON.stringify(scrape?.samples.filter((sample) => sample.name.startsWith('listings_messages'))));
    const metrics = scrape as Exposition;
    const stats = await service.stats();
    expect(stats.created).toBe(300);
    expect(metrics.types.get('listings_messages_published_total')).toBe('counter');
    expect(metrics.value('listings_messages_consumed_total')).toBe(300);
    expect(metrics.value('listings_messages_failed_total')).toBe(0);
    expect(metrics.value('listings_messages_dead_lettered_total')).toBe(0);
    expect(metrics.value('listings_requests_total')).toBe(stats.created + stats.replayed);
    expect(metrics.value('listings_request_duration_seconds_count', { outcome: 'ok' })).toBe(metrics.value('listings_requests_total'));
    expect(metrics.types.get('listings_request_duration_seconds')).toBe('histogram');
    expect(metrics.value('listings_ready')).toBe(1);
    expect(metrics.value('listings_circuit_open')).toBe(0);
    expect(metrics.value('listings_concurrency_limit')).toBeGreaterThan(0);
    expect(metrics.value('listings_in_flight')).toBeGreaterThanOrEqual(0);
    expect(metrics.value('listings_process_resident_memory_bytes')).toBeGreaterThan(0);
    await until('the lag of every partition at 0', async () => {
      const now = parseExposition((await get(`${base}/metrics`)).text);
      const lags = now.samples.filter((sample) => sample.name === 'listings_partition_lag');
      return lags.length > 0 && lags.every((sample) => sample.value === 0) && (now.value('listings_commits_total') ?? 0) > 0;
    }, 20_000);
    // Probes and scrapes only: nothing else is served, nothing of the request echoed.
    expect((await get(`${base}/metrics`, { method: 'POST', body: 'x' })).status).toBe(405);
    expect((await get(`${base}/<script>`)).text).not.toContain('<script>');
    expect((await get(`${base}/nothing`)).status).toBe(404);
    // The service goes away: the worker stays alive (health) but says it cannot take work (readiness).
    await service.stop();
    await produce(mock.bootstrap, topic, products(300, 320, 'M'));
    await until('not ready while the service is down', async () => (await get(`${base}/readyz`)).status === 503, 60_000, async () => `${(await get(`${base}/readyz`)).text}\n${running.stderr().slice(-2000)}`);
    expect((await get(`${base}/readyz`)).text).toBe('not ready: the service looks down (the circuit is open)\n');
    expect(parseExposition((await get(`${base}/metrics`)).text).value('listings_circuit_open')).toBe(1);
    expect((await get(`${base}/healthz`)).status).toBe(200);
    running.child.kill('SIGTERM');
    await running.exited;
  }, 180_000);

  it('a port in use is refused before anything is consumed (exit 2, naming the address)', async () => {
    const cwd = tempDir('stream-metrics-busy-');
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const refused = startStream(mock, 'busy', 'busy', 'http://127.0.0.1:9', cwd, ['--admin-listen', `127.0.0.1:${port}`]);
    const [code] = await refused.exited;
    busy.close();
    expect(code).toBe(2);
    expect(refused.stderr()).toContain(`cannot listen on 127.0.0.1:${port}: port ${port} is already in use`);
    const bad = startStream(mock, 'busy', 'busy', 'http://127.0.0.1:9', cwd, ['--admin-listen', 'localhost:99999']);
    expect((await bad.exited)[0]).toBe(2);
    expect(bad.stderr()).toContain('--admin-listen "localhost:99999": expected PORT, HOST:PORT or [IPv6]:PORT');
    expect(bad.stderr()).not.toMatch(/\n\s+at /);
  }, 60_000);
});
