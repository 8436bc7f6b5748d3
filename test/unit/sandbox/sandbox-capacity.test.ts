import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Admission } from '../../../src/sandbox/admission.js';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { sandboxStarter } from '../../helpers/sandbox-in-process.js';

const KEY = 'sk_sandbox_capacity_0123456789';
const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const listing = (sku: string) => JSON.stringify({ marketplace: 'ebay', payload: { sku, title: `Title of ${sku}` } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Timed {
  status: number;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

async function post(sandbox: Sandbox, sku: string, signal?: AbortSignal): Promise<Timed> {
  const start = performance.now();
  const response = await request(`${sandbox.url}/v1/listings`, { method: 'POST', headers: AUTH, body: listing(sku), ...(signal ? { signal } : {}) });
  const text = await response.body.text();
  return { status: response.statusCode, ms: performance.now() - start, headers: response.headers, json: JSON.parse(text) as unknown };
}

const concurrently = (sandbox: Sandbox, count: number, prefix: string) => Promise.all(Array.from({ length: count }, (_, i) => post(sandbox, `${prefix}-${i}`)));

const sandboxWith = sandboxStarter({ apiKey: KEY });

describe('Admission', () => {
  it('serves up to capacity, queues up to the queue (FIFO), refuses the rest and tracks the peaks', () => {
    const admission = new Admission(2, 1);
    const turns: string[] = [];
    expect(admission.enter(() => turns.push('a'))).toBe('serve');
    expect(admission.enter(() => turns.push('b'))).toBe('serve');
    const c = () => turns.push('c');
    expect(admission.enter(c)).toBe('wait');
    expect(admission.enter(() => turns.push('d'))).toBe('refuse');
    expect(admission.leave(c)).toBe(true);
    expect(admission.leave(c)).toBe(false);
    const e = () => turns.push('e');
    expect(admission.enter(e)).toBe('wait');
    admission.release();
    expect(turns).toEqual(['e']);
    expect(admission.leave(e)).toBe(false);
    admission.release();
    admission.release();
    expect([admission.enter(() => turns.push('f')), admission.enter(() => turns.push('g')), admission.enter(() => turns.push('h'))]).toEqual(['serve', 'serve', 'wait']);
    expect({ peakInFlight: admission.peakInFlight, peakQueued: admission.peakQueued }).toEqual({ peakInFlight: 3, peakQueued: 1 });
  });
});

describe('capacity and queue', () => {
  it('serves capacity at once, queues the next, sheds the rest with 503 at once', async () => {
    const sandbox = await sandboxWith({ capacity: 2, queue: 1, latency: 200 });
    const replies = await concurrently(sandbox, 5, 'C');
    const served = replies.filter((reply) => reply.status === 201).map((reply) => reply.ms).sort((a, b) => a - b);
    const shed = replies.filter((reply) => reply.status === 503);
    expect(served).toHaveLength(3);
    expect(shed).toHaveLength(2);
    for (const reply of shed) {
      // Shed at once: before any request is served (an order, not a time, so a loaded machine cannot fail it).
      expect(reply.ms).toBeLessThan(served[0]!);
      expect(reply.json).toMatchObject({ error: { code: 'overloaded', message: expect.any(String) as unknown } });
      expect(reply.headers['retry-after']).toBeUndefined();
    }
    // Two in service at once (~200 ms); the queued one waits for a slot, then is served for its own 200 ms.
    expect(served[0]).toBeGreaterThanOrEqual(195);
    expect(served[2]).toBeGreaterThanOrEqual(395);
    expect(sandbox.stats()).toMatchObject({ requests: 5, created: 3, overloaded: 2, throttled: 0, peak_in_flight: 3, peak_queued: 1, by_status: { '201': 3, '503': 2 } });
  });

  it('with an unlimited queue serves everything, capacity at a time', async () => {
    const sandbox = await sandboxWith({ capacity: 4, latency: 50 });
    const started = performance.now();
    const replies = await concurrently(sandbox, 12, 'U');
    expect(performance.now() - started).toBeGreaterThanOrEqual(148);
    expect(replies.every((reply) => reply.status === 201)).toBe(true);
    expect(sandbox.stats()).toMatchObject({ created: 12, overloaded: 0, peak_in_flight: 12, peak_queued: 8 });
  });

  it('queue 0 serves capacity and refuses the rest', async () => {
    const sandbox = await sandboxWith({ capacity: 1, queue: 0, latency: 100 });
    const statuses = (await concurrently(sandbox, 3, 'Z')).map((reply) => reply.status).sort();
    expect(statuses).toEqual([201, 503, 503]);
    expect(sandbox.stats()).toMatchObject({ overloaded: 2, peak_in_flight: 1, peak_queued: 0 });
  });

  it('a client that leaves the queue frees its place, and its request is never processed', async () => {
    const sandbox = await sandboxWith({ capacity: 1, queue: 1, latency: 300 });
    const first = post(sandbox, 'Q-1');
    await sleep(50);
    const controller = new AbortController();
    const quitter = post(sandbox, 'Q-2', controller.signal).catch((error: unknown) => error);
    await sleep(50);
    controller.abort();
    expect(await quitter).toBeInstanceOf(Error);
    await sleep(50);
    const later = post(sandbox, 'Q-3');
    expect((await first).status).toBe(201);
    expect((await later).status).toBe(201);
    expect(sandbox.stats()).toMatchObject({ requests: 3, created: 2, overloaded: 0, peak_in_flight: 2, peak_queued: 1, by_status: { '201': 2 } });
  });

  it('a client that leaves while in service frees its slot exactly once, when its answer is due', async () => {
    const sandbox = await sandboxWith({ capacity: 1, queue: 0, latency: 100 });
    const controller = new AbortController();
    const quitter = post(sandbox, 'S-1', controller.signal).catch((error: unknown) => error);
    await sleep(30);
    controller.abort();
    expect(await quitter).toBeInstanceOf(Error);
    await sleep(120);
    // One slot again: of two at once, one is served and one refused (a double release would serve both).
    const statuses = (await concurrently(sandbox, 2, 'S')).map((reply) => reply.status).sort();
    expect(statuses).toEqual([201, 503]);
  });

  it('the rate limit comes first (429), then capacity; injected 503s are not counted as overloaded', async () => {
    const limited = await sandboxWith({ rateLimit: 1, capacity: 1, queue: 0, latency: 100 });
    const statuses = (await concurrently(limited, 3, 'R')).map((reply) => reply.status).sort();
    expect(statuses).toEqual([201, 429, 429]);
    expect(limited.stats()).toMatchObject({ throttled: 2, overloaded: 0, peak_in_flight: 1 });

    const failing = await sandboxWith({ failRate: 1, failStatus: 503, capacity: 1 });
    expect((await post(failing, 'F-1')).status).toBe(503);
    expect(failing.stats()).toMatchObject({ overloaded: 0, by_status: { '503': 1 } });
  });

  it('without a capacity, nothing waits, and the peak in flight is still counted', async () => {
    const sandbox = await sandboxWith({ latency: 100 });
    const started = performance.now();
    const replies = await concurrently(sandbox, 8, 'N');
    expect(replies.every((reply) => reply.status === 201)).toBe(true);
    expect(performance.now() - started).toBeLessThan(250);
    expect(sandbox.stats()).toMatchObject({ overloaded: 0, peak_in_flight: 8, peak_queued: 0 });
  });
});
