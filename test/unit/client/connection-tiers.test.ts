import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionTiers } from '../../../src/client/connection-tiers.js';
import { post } from '../../../src/client/transport.js';
import { PoolClass } from '../../../src/client/undici.js';

let server: Server | undefined;
let tiers: ConnectionTiers | undefined;

afterEach(async () => {
  await tiers?.destroy();
  tiers = undefined;
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** A service answering 201 after 5-15 ms; `connections()` counts the connections it was opened. */
async function service(): Promise<{ origin: string; connections: () => number }> {
  let opened = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'), 5 + Math.random() * 10));
  });
  server.on('connection', () => opened++);
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => opened };
}

function tiersTo(origin: string, connections: number, firstTier: number): ConnectionTiers {
  tiers = new ConnectionTiers(connections, (n) => new PoolClass(origin, { connections: n, pipelining: 1 }), firstTier);
  return tiers;
}

const send = (to: ConnectionTiers, origin: string) => to.send((dispatcher) => post(dispatcher, { origin, path: '/v1/listings', method: 'POST', body: '{}' }, 5_000, undefined));

describe('ConnectionTiers', () => {
  it('a closed loop of as many requests as the first tier holds opens that many connections, however many more are allowed', async () => {
    // Each answer is followed at once by the next request, before undici counts its connection free again: a single
    // pool with room for 64 opened more than 16 for 16 in flight.
    const { origin, connections } = await service();
    const to = tiersTo(origin, 64, 16);
    const worker = async (): Promise<void> => {
      for (let i = 0; i < 30; i++) expect((await send(to, origin)).statusCode).toBe(201);
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(connections()).toBe(16);
  });

  it('requests past the first tier go to the second, which opens only then', async () => {
    const { origin, connections } = await service();
    const to = tiersTo(origin, 64, 16);
    await Promise.all(Array.from({ length: 10 }, () => send(to, origin)));
    expect(connections()).toBe(10);
    const answers = await Promise.all(Array.from({ length: 40 }, () => send(to, origin)));
    expect(answers.every((answer) => answer.statusCode === 201)).toBe(true);
    // 16 in the first tier (10 of them reused), 24 more in the second.
    expect(connections()).toBe(16 + 24);
  });
});
