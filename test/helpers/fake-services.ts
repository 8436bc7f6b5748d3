import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Tiny stand-ins for a service that cannot be used: one that never answers, one that answers the same status to
 * everything, one with a self-signed certificate. All listen on 127.0.0.1 and are closed after the test file.
 */
export interface FakeService {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Connections accepted (hung, TLS) or requests answered (status). */
  count(): number;
  close(): Promise<void>;
}

const open = new Set<FakeService>();

afterAll(async () => {
  await Promise.all([...open].map((service) => service.close()));
});

function track(server: NetServer | HttpServer, count: () => number): FakeService {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {
      // the client hangs up as it pleases
    });
    socket.once('close', () => sockets.delete(socket));
  });
  let closed: Promise<void> | undefined;
  const service: FakeService = {
    url: '',
    count,
    close() {
      closed ??= new Promise<void>((resolve) => {
        open.delete(service);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
  open.add(service);
  return service;
}

async function listen(server: NetServer | HttpServer): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A TCP server that accepts connections and reads everything, and never writes a byte: a hung service. */
export async function startHungService(): Promise<FakeService> {
  let connections = 0;
  const server = createNetServer((socket) => {
    connections++;
    socket.resume();
  });
  const service = track(server, () => connections);
  service.url = `http://127.0.0.1:${await listen(server)}`;
  return service;
}

/** An HTTP server that answers `status` (with a small JSON body, `message` its message) to every request. */
export async function startStatusService(status: number, message = `always ${status}`): Promise<FakeService> {
  let requests = 0;
  const server = createHttpServer((request, response) => {
    requests++;
    request.resume();
    request.once('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message }));
    });
  });
  const service = track(server, () => requests);
  service.url = `http://127.0.0.1:${await listen(server)}`;
  return service;
}

/** An HTTPS server with the given key and certificate; it would answer 201, if a client ever trusted it. */
export async function startTlsService(keyPem: string, certPem: string): Promise<FakeService> {
  let handshakes = 0;
  const server = createHttpsServer({ key: keyPem, cert: certPem }, (request, response) => {
    request.resume();
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end('{}');
  });
  server.on('tlsClientError', () => {
    // expected: the client rejects the certificate
  });
  server.on('secureConnection', () => handshakes++);
  const service = track(server, () => handshakes);
  service.url = `https://127.0.0.1:${await listen(server)}`;
  return service;
}

/** A port that was free a moment ago: bound, then closed. Nothing listens on it (unless someone raced for it). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether the `openssl` CLI can be run here. */
export function hasOpenssl(): boolean {
  const result = spawnSync('openssl', ['version'], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with the `openssl` CLI in `dir`. */
export function selfSignedCertificate(dir: string): { key: string; cert: string } {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  const result = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    { encoding: 'utf8' },
  );
  if (result.error !== undefined || result.status !== 0) throw new Error(`openssl req failed: ${result.error?.message ?? result.stderr}`);
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
}

/** What a scripted service received: each request's method, URL and headers. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A FakeService that keeps the requests it was sent. */
export interface ScriptedService extends FakeService {
  requests: SeenRequest[];
}

type Answer = (request: SeenRequest, response: ServerResponse, index: number) => void;

/** The request handler of a scripted service: reads the body, keeps the request, then lets `answer` write. */
function scripted(requests: SeenRequest[], answer: Answer): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const seen: SeenRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      response.on('error', () => {
        // the client hangs up as it pleases
      });
      answer(seen, response, requests.length - 1);
    });
  };
}

/**
 * An HTTP server whose every answer is written by `answer`, once the request body has been read: for hostile
 * services (escape sequences, huge or broken bodies, redirects, bodies that trickle). Counts and keeps the requests.
 */
export async function startScriptedService(answer: Answer): Promise<ScriptedService> {
  const requests: SeenRequest[] = [];
  const server = createHttpServer(scripted(requests, answer));
  const service = Object.assign(track(server, () => requests.length), { requests });
  service.url = `http://127.0.0.1:${await listen(server)}`;
  return service;
}

/** An HTTPS ScriptedService with the given key and certificate (NODE_EXTRA_CA_CERTS lets the CLI trust it). */
export async function startScriptedTlsService(keyPem: string, certPem: string, answer: Answer): Promise<ScriptedService> {
  const requests: SeenRequest[] = [];
  const server = createHttpsServer({ key: keyPem, cert: certPem }, scripted(requests, answer));
  server.on('tlsClientError', () => {
    // a client that does not trust the certificate hangs up
  });
  const service = Object.assign(track(server, () => requests.length), { requests });
  service.url = `https://127.0.0.1:${await listen(server)}`;
  return service;
}
