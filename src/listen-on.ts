import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { ConfigError } from './errors.js';

/**
 * Starts `server` listening on host:port (0: a free port) and returns the base URL to reach it (a wildcard host is
 * reached on loopback). `backlog`: the connections the kernel may hold before the server accepts them (Node's 511
 * unless given; the kernel caps it at net.core.somaxconn). The errors a person can act on become a ConfigError
 * naming the address and what to change.
 */
export async function listenOn(server: Server, host: string, port: number, backlog?: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => reject(listenError(error, host, port));
    server.once('error', failed);
    server.listen({ port, host, backlog }, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`;
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  const why: Record<string, string> = {
    EADDRINUSE: `port ${port} is already in use`,
    EACCES: `no permission to listen on ${where}`,
    EADDRNOTAVAIL: `${host} is not an address of this machine`,
    ENOTFOUND: `host ${host} not found`,
    EAI_AGAIN: `host ${host} could not be resolved`,
  };
  const message = error.code === undefined ? undefined : why[error.code];
  return message === undefined ? error : new ConfigError(`cannot listen on ${where}: ${message}`, { cause: error, hint: 'choose another port (0 picks a free one) or host' });
}
