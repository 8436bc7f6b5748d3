import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Forwarder } from '../../../src/listen/forward.js';

const servers: Server[] = [];
const timers: ReturnType<typeof setInterval>[] = [];

afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const server of servers.splice(0)) server.close();
});

/** A target that answers the first bytes at once, then one more piece every 50 ms, and never ends. */
async function trickling(first: string, piece: string): Promise<string> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write(first);
      timers.push(setInterval(() => socket.write(piece), 50));
    });
  });
  servers.push(server);
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const REQUEST = { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":"e1"}') };

describe('Forwarder: one deadline for the whole answer', () => {
  it('gives up on a target that trickles its headers (each piece would reset an idle timeout)', async () => {
    const forwarder = new Forwarder(await trickling('HTTP/1.1 200 OK\r\n', 'X-A: b\r\n'), 400);
    const result = await forwarder.send(REQUEST);
    forwarder.close();
    expect(result).toMatchObject({ ok: false, error: 'no whole answer within 400 ms' });
    expect(result.ms).toBeLessThan(3_000);
  });

  it('gives up on a 201 whose chunked body trickles without end: not ok, not a 2xx forwarded', async () => {
    const head = 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n';
    const forwarder = new Forwarder(await trickling(head, '1\r\nx\r\n'), 400);
    const result = await forwarder.send(REQUEST);
    forwarder.close();
    expect(result).toMatchObject({ ok: false, error: 'no whole answer within 400 ms' });
  });

  it('a target that answers whole is forwarded as before', async () => {
    const forwarder = new Forwarder(await trickling('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n', ''), 400);
    const result = await forwarder.send(REQUEST);
    forwarder.close();
    expect(result).toMatchObject({ ok: true, status: 204 });
  });
});
