import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../../../src/client/transport.js';
import { buildConnectorFn, PoolClass } from '../../../src/client/undici.js';
import { WarmConnections } from '../../../src/client/warm-connections.js';

let server: Server | undefined;
let warm: WarmConnections | undefined;
let pool: InstanceType<typeof PoolClass> | undefined;

afterEach(async () => {
  warm?.close();
  await pool?.destroy();
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = warm = pool = undefined;
});

/** A service answering 201; `sockets` are the connections it was opened, `closed()` how many of them closed. */
async function service(): Promise<{ origin: string; sockets: Socket[]; closed: () => number }> {
  const sockets: Socket[] = [];
  let closed = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
  });
  server.on('connection', (socket: Socket) => {
    sockets.push(socket);
    socket.once('close', () => closed++);
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets, closed: () => closed };
}

function poolTo(origin: string): InstanceType<typeof PoolClass> {
  warm = new WarmConnections(buildConnectorFn({ timeout: 5_000 }));
  pool = new PoolClass(origin, { connections: 16, pipelining: 1, connect: warm.connector });
  return pool;
}

const send = async (origin: string) => (await post(pool!, { origin, path: '/v1/listings', method: 'POST', body: '{}' }, 5_000, undefined)).statusCode;

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(done()).toBe(true);
}

const turns = (n: number) => new Promise((resolve) => setTimeout(resolve, n * 10));

describe('WarmConnections', () => {
  it("opens nothing before the pool's first connection, then up to the count asked in all, which the next requests take", async () => {
    const { origin, sockets } = await service();
    poolTo(origin);
    warm!.prepare(8);
    await turns(5);
    expect(sockets).toHaveLength(0);
    expect(await send(origin)).toBe(201);
    warm!.prepare(8);
    await until(() => sockets.length === 8);
    expect(warm!.size).toBe(8);
    // Eight at once: the pool's own connection and seven opened ahead; not one more is opened.
    expect(await Promise.all(Array.from({ length: 8 }, () => send(origin)))).toEqual(Array(8).fill(201));
    expect(sockets).toHaveLength(8);
    // Asking for fewer than are open closes none and opens none.
    warm!.prepare(4);
    await turns(5);
    expect(sockets).toHaveLength(8);
    expect(warm!.size).toBe(8);
  });

  it('never hands a request a connection the server closed while it waited; close() closes the idle ones', async () => {
    const { origin, sockets, closed } = await service();
    poolTo(origin);
    expect(await send(origin)).toBe(201);
    warm!.prepare(4);
    await until(() => sockets.length === 4);
    // The server drops the three idle ones: they are forgotten, and the next requests open connections of their own.
    for (const socket of sockets.slice(1)) socket.destroy();
    await until(() => warm!.size === 1);
    expect(await Promise.all([send(origin), send(origin)])).toEqual([201, 201]);
    expect(sockets).toHaveLength(5);
    // Two in use, six more opened ahead, and closed.
    warm!.prepare(8);
    await until(() => sockets.length === 11);
    const closedBefore = closed();
    warm!.close();
    await until(() => closed() === closedBefore + 6);
    warm!.prepare(16);
    await turns(5);
    expect(sockets).toHaveLength(11);
  });

  it('a request that failed without an answer discards the idle ones, and none opens until asked again', async () => {
    // A service that restarts closes them all, but their close may not be read before the next request takes one.
    const { origin, sockets, closed } = await service();
    poolTo(origin);
    expect(await send(origin)).toBe(201);
    warm!.prepare(5);
    await until(() => sockets.length === 5);
    warm!.discard();
    await until(() => closed() === 4);
    await turns(5);
    expect(sockets).toHaveLength(5);
    expect(warm!.size).toBe(1);
    warm!.prepare(3);
    await until(() => sockets.length === 7);
  });

  it('idle connections opened ahead never keep the process alive', async () => {
    // A process that opened connections ahead and then has nothing left to do ends at once, though they would stay
    // idle for a minute: before, it waited for them (the test's timeout).
    const { origin, sockets } = await service();
    const module = (name: string) => fileURLToPath(new URL(`../../../dist/client/${name}.js`, import.meta.url));
    const script = `
      const { WarmConnections } = await import(${JSON.stringify(module('warm-connections'))});
      const { buildConnectorFn, PoolClass } = await import(${JSON.stringify(module('undici'))});
      const { post } = await import(${JSON.stringify(module('transport'))});
      const warm = new WarmConnections(buildConnectorFn({ timeout: 5000 }), { idleMs: 60000 });
      const pool = new PoolClass(process.argv[1], { connections: 8, pipelining: 1, connect: warm.connector });
      const answer = await post(pool, { origin: process.argv[1], path: '/v1/listings', method: 'POST', body: '{}' }, 5000, undefined);
      warm.prepare(6);
      while (warm.size < 6) await new Promise((resolve) => setTimeout(resolve, 5));
      console.log(answer.statusCode, warm.size);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, origin], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = setTimeout(() => child.kill(), 15_000);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    clearTimeout(stop);
    expect(out.trim()).toBe('201 6');
    expect(code).toBe(0);
    expect(sockets).toHaveLength(6);
  }, 20_000);
});
