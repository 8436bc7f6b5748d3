import { describe, expect, it } from 'vitest';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

const LISTING = JSON.stringify({ marketplace: 'ebay', payload: { sku: 'OUT-1', title: 'A title' } });

describe('sandbox outage control: POST /_sandbox/outage', () => {
  it('answers every listing request with the status asked for during the window (503 with Retry-After), then 201 again', async () => {
    const sandbox = await startSandboxProcess();
    const create = () =>
      fetch(`${sandbox.url}/v1/listings`, { method: 'POST', headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' }, body: LISTING });
    const outage = (body: string) => fetch(`${sandbox.url}/_sandbox/outage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    const before = Date.now();
    const started = await outage('{"ms": 1500}');
    expect(started.status).toBe(200);
    const { until } = (await started.json()) as { until: number };
    expect(until).toBeGreaterThanOrEqual(before + 1500);
    expect(until).toBeLessThan(Date.now() + 1500 + 50);

    const refused = await Promise.all([create(), create(), create()]);
    expect(refused.map((reply) => reply.status)).toEqual([503, 503, 503]);
    expect(refused[0]?.headers.get('retry-after')).toBe('1');
    expect(await refused[0]?.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    await Promise.all(refused.slice(1).map((reply) => reply.text()));

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now() + 20)));
    expect((await create()).status).toBe(201);
    expect(await sandbox.stats()).toMatchObject({ requests: 4, created: 1, overloaded: 3, by_status: { '201': 1, '503': 3 } });

    // Another status; bad bodies and methods are refused without starting an outage.
    expect((await outage('{"ms": 60000, "status": 429}')).status).toBe(200);
    const throttled = await create();
    expect([throttled.status, throttled.headers.get('retry-after')]).toEqual([429, '1']);
    expect((await outage('{"ms": 0}')).status).toBe(200);
    expect((await create()).status).toBe(201);
    for (const bad of ['{"ms": -1}', '{"ms": 10, "status": 200}', 'nope', '[]']) expect((await outage(bad)).status, bad).toBe(400);
    expect((await fetch(`${sandbox.url}/_sandbox/outage`)).status).toBe(405);
    expect((await create()).status).toBe(201);
    expect(await sandbox.stats()).toMatchObject({ throttled: 1, by_status: { '201': 3, '429': 1, '503': 3 } });
    await sandbox.stop();
  });
});
