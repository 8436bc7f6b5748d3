import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Forwarder, type ForwardResult } from '../../../src/listen/forward.js';
import { ForwardQueue } from '../../../src/listen/forward-queue.js';
import { until } from '../../helpers/until.js';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** An app that reads what it is sent and never answers: every forward waits for the forwarder's deadline. */
async function silentApp(): Promise<string> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.resume();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(() => {
    sockets.forEach((socket) => socket.destroy());
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

const request = (bytes: number): { method: string; headers: Record<string, string>; body: Buffer } => ({ method: 'POST', headers: {}, body: Buffer.alloc(bytes, 'x') });

describe('ForwardQueue: the callbacks waiting behind a slow app', () => {
  it('holds at most maxQueuedBytes of bodies: a callback beyond is reported failed at once; one alone may wait whatever its size', async () => {
    const queue = new ForwardQueue(new Forwarder(await silentApp(), 300), 1, 1_000, 1_000);
    const results: (ForwardResult | undefined)[] = [];
    const push = (bytes: number): void => {
      const at = results.push(undefined) - 1;
      queue.push(request(bytes), (result) => (results[at] = result));
    };
    push(400); // in flight
    push(2_000); // waits alone, though larger than the bound
    push(1); // over the bound behind it: failed at once
    expect(results[2]).toMatchObject({ ok: false, error: '2000 bytes of forwards already waiting', ms: 0 });
    expect(results.slice(0, 2)).toEqual([undefined, undefined]);
    await queue.drain();
    expect(results[1]).toMatchObject({ ok: false, error: 'the receiver stopped before sending it' });
  });

  it('counts a body out of the bound when it leaves the queue', async () => {
    const queue = new ForwardQueue(new Forwarder(await silentApp(), 300), 1, 1_000, 1_000);
    const results: ForwardResult[] = [];
    for (const bytes of [10, 600, 300]) queue.push(request(bytes), (result) => results.push(result));
    expect(results).toEqual([]);
    // The first forward times out, the 600 start: 300 wait, and 600 more fit beside them.
    await until('the first forward', () => results.length === 1);
    queue.push(request(600), (result) => results.push(result));
    expect(results).toHaveLength(1);
    await queue.drain();
  });
});
