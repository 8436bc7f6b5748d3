import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { sandboxStarter } from '../helpers/sandbox-in-process.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { freePort, seededRandom, sleep } from './chaos-helpers.js';

// The sandbox options the chaos and soak runs rely on: --data (a restart keeps what was created) and latency spikes.

const HEADERS = { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' };
const body = (sku: string, title = `Title of ${sku}`): string => JSON.stringify({ marketplace: 'ebay', payload: { sku, title } });

async function post(sandbox: { url: string }, sku: string, key: string, title?: string): Promise<{ status: number; replayed: boolean }> {
  const response = await fetch(`${sandbox.url}/v1/listings`, { method: 'POST', headers: { ...HEADERS, 'idempotency-key': key }, body: body(sku, title) });
  await response.text();
  return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

const sandboxWith = sandboxStarter();

describe('sandbox --data', () => {
  it('a sandbox started again on the same file keeps its listings and keys: a repeat is a replay, another key a duplicate', async () => {
    const data = join(tempDir(), 'data.ndjson');
    const first = await sandboxWith({ dataFile: data });
    expect(await post(first, 'A', 'key-a')).toEqual({ status: 201, replayed: false });
    expect(await post(first, 'B', 'key-b')).toEqual({ status: 201, replayed: false });
    await first.close();
    expect(readFileSync(data, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([
      { key: 'key-a', digest: expect.any(Number) as unknown, marketplace: 'ebay', sku: 'A' },
      { key: 'key-b', digest: expect.any(Number) as unknown, marketplace: 'ebay', sku: 'B' },
    ]);

    const second = await sandboxWith({ dataFile: data });
    expect(second.stats()).toMatchObject({ requests: 0, created: 2, duplicates: 0 });
    expect(await post(second, 'A', 'key-a')).toEqual({ status: 201, replayed: true });
    expect((await post(second, 'A', 'key-a', 'another title')).status).toBe(422);
    // The same body under another key: a second listing at a real service.
    expect(await post(second, 'B', 'key-b2')).toEqual({ status: 201, replayed: false });
    expect(second.stats()).toMatchObject({ requests: 3, created: 2, replayed: 1, duplicates: 1 });
    await second.close();

    // The history counts too: a third life still sees the duplicate.
    const third = await sandboxWith({ dataFile: data });
    expect(third.stats()).toMatchObject({ created: 2, duplicates: 1 });
  });

  it('a line torn by a kill mid-write is cut off; a file that is not sandbox data is refused', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.ndjson');
    const first = await sandboxWith({ dataFile: data });
    expect((await post(first, 'T-1', 'key-t1')).status).toBe(201);
    await first.close();
    appendFileSync(data, '{"key":"key-t2","dig');
    const second = await sandboxWith({ dataFile: data });
    expect(second.stats()).toMatchObject({ created: 1 });
    expect((await post(second, 'T-2', 'key-t2')).status).toBe(201);
    await second.close();
    expect(readFileSync(data, 'utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { sku: string }).sku)).toEqual(['T-1', 'T-2']);

    const catalog = join(dir, 'catalog.csv');
    writeFileSync(catalog, 'sku,title\nA,B\n');
    await expect(startSandbox({ port: 0, dataFile: catalog })).rejects.toThrow(ConfigError);
    await expect(startSandbox({ port: 0, dataFile: catalog })).rejects.toThrow(`${catalog}:1 is not a sandbox data record`);
    expect(readFileSync(catalog, 'utf8')).toBe('sku,title\nA,B\n');
    await expect(startSandbox({ port: 0, dataFile: dir })).rejects.toThrow(/cannot open the sandbox data file/);
  });

  it('the CLI: --data, SIGKILL, and a restart on the same port continues where the last life stopped', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.ndjson');
    const port = await freePort(seededRandom(Date.now()));
    const first = await startSandboxProcess(['--data', data], { port });
    expect(first.url).toBe(`http://127.0.0.1:${port}`);
    expect(await post(first, 'K-1', 'key-k1')).toEqual({ status: 201, replayed: false });
    first.child.kill('SIGKILL');
    const second = await startSandboxProcess(['--data', data], { port, retryInUseMs: 10_000 });
    expect(await second.stats()).toMatchObject({ requests: 0, created: 1 });
    // The hint follows the URL line on stderr.
    for (let waited = 0; !second.stderr().includes('counts at') && waited < 5_000; waited += 20) await sleep(20);
    expect(second.stderr()).toContain(`data kept in ${data} (1 listings from earlier runs)`);
    expect(await post(second, 'K-1', 'key-k1')).toEqual({ status: 201, replayed: true });
    expect(await second.stats()).toMatchObject({ requests: 1, created: 1, replayed: 1, duplicates: 0 });
    await second.stop();
  });
});

describe('sandbox latency spikes', () => {
  it('spikeRate delays that share of the listing answers by spikeMs, drawn from the seed', async () => {
    const sandbox = await sandboxWith({ spikeRate: 0.5, spikeMs: 300, seed: 7 });
    const times: number[] = [];
    for (let i = 0; i < 12; i++) {
      const start = performance.now();
      expect((await post(sandbox, `S-${i}`, `key-s${i}`)).status).toBe(201);
      times.push(performance.now() - start);
    }
    const spiked = times.filter((ms) => ms >= 290).length;
    expect(spiked).toBeGreaterThan(0);
    expect(spiked).toBeLessThan(12);
  });
});
