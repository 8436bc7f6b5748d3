import { createServer, type AddressInfo, type Socket } from 'node:net';

/** What the app does with a request, by its order on its connection (0: the first). */
export type AppMove = 'answer' | 'close' | 'partial' | 'silent';

export interface KeepAliveApp {
  url: string;
  /** The bodies received, each with the number of the connection it came on (0: the first). */
  received: { connection: number; body: string }[];
  close(): Promise<void>;
}

/**
 * An app behind `--forward-to` over raw TCP, so the test says exactly what each connection does: `answer` (204,
 * kept alive, no Keep-Alive header telling how long, as most servers but Node's), `close` (closed unanswered: a
 * keep-alive timeout that fired as the request came), `partial` (a few bytes of an answer, then closed), `silent`.
 */
export async function startKeepAliveApp(move: (onConnection: number) => AppMove): Promise<KeepAliveApp> {
  const received: KeepAliveApp['received'] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    let onConnection = 0;
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(pending.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const body = pending.subarray(end + 4, end + 4 + length).toString('utf8');
        pending = pending.subarray(end + 4 + length);
        received.push({ connection, body });
        const next = move(onConnection++);
        if (next === 'answer') socket.write('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n');
        else if (next === 'partial') socket.end('HTTP/1.1 2');
        else if (next === 'close') socket.destroy();
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () =>
      new Promise((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
