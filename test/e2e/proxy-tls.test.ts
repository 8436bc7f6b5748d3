import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { REPO_ROOT, type CliResult } from '../helpers/cli.js';
import { hasOpenssl, selfSignedCertificate } from '../helpers/fake-services.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishCatalog } from '../helpers/publish.js';

/**
 * Transport, end to end through the built binary: HTTP_PROXY / HTTPS_PROXY / NO_PROXY are honoured (a CONNECT proxy
 * on loopback, written here, counts the tunnels and keeps the bytes it relayed); an https service is reached through
 * a tunnel the proxy cannot read; a self-signed certificate fails naming NODE_EXTRA_CA_CERTS and works with it; plain
 * http to a host that is not loopback (or through a proxy that is not) is refused before any connection.
 */

const KEY = 'sk_live_PROXY_e2e_3f9a61c2d8';
const PROXY_PASSWORD = 'pr0xy-S3CRET-pw';

const OPENSSL = hasOpenssl();
if (!OPENSSL) {
  console.warn('\n!!! openssl CLI not found: SKIPPING the https tests of proxy-tls.test.ts (CONNECT to https, self-signed certificates) !!!\n');
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

/** Close a server and every connection it holds (tunnels and keep-alive connections would keep it open). */
function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

interface TestProxy {
  url: string;
  /** `host:port` of every CONNECT tunnel asked for. */
  tunnels: string[];
  /** Requests forwarded without a tunnel (absolute-form). */
  forwards: number;
  /** Every byte the clients sent through the proxy, tunnels included. */
  relayed(): string;
}

/** A small HTTP proxy on loopback: CONNECT tunnels and plain forwarding; `refuse` answers every CONNECT with it. */
async function startProxy(options: { refuse?: number } = {}): Promise<TestProxy> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const proxy: TestProxy = { url: '', tunnels: [], forwards: 0, relayed: () => Buffer.concat(chunks).toString('latin1') };
  const server = createHttpServer((request, response) => {
    proxy.forwards++;
    const target = new URL(request.url ?? '/');
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (request, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    proxy.tunnels.push(target);
    client.on('error', () => undefined);
    if (options.refuse !== undefined) {
      client.end(`HTTP/1.1 ${options.refuse} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
    const upstream = netConnect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.on('data', (chunk: Buffer) => chunks.push(chunk));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  proxy.url = `http://127.0.0.1:${await listen(server)}`;
  closers.push(closer(server, sockets));
  return proxy;
}

interface TlsService {
  url: string;
  /** Listing requests answered 201 (with the right key). */
  created: () => number;
}

/** An https server that acts as the service: 201 and a listing shaped as the contract says, for the right key. */
async function startTlsService(key: string, cert: string): Promise<TlsService> {
  let created = 0;
  const sockets = new Set<Socket>();
  const server = createHttpsServer({ key, cert }, (request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.headers.authorization !== `Bearer ${KEY}`) {
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"unauthorized","message":"bad key"}}');
        return;
      }
      const { sku } = JSON.parse(body) as { sku: string };
      created++;
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sku, status: 'ready', title: `${sku} - EBAY_US`, item_specifics: ['Marketplace'] }));
    });
  });
  server.on('tlsClientError', () => undefined);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = `https://127.0.0.1:${await listen(server)}`;
  closers.push(closer(server, sockets));
  return { url, created: () => created };
}

/** `listings publish catalog.csv --json` of `rows` rows to `baseUrl`, with `env` added (no proxy variable unless given). */
async function publish(baseUrl: string, rows: number, env: Record<string, string | undefined>, extra: string[] = []): Promise<CliResult & { summary?: Record<string, unknown> }> {
  const noProxyVars = { HTTP_PROXY: undefined, HTTPS_PROXY: undefined, NO_PROXY: undefined, http_proxy: undefined, https_proxy: undefined, no_proxy: undefined };
  const { result } = await publishCatalog(rows, ['--json', '--base-url', baseUrl, ...extra], { env: { ...noProxyVars, LISTINGS_API_KEY: KEY, ...env }, timeoutMs: 20_000 });
  let summary: Record<string, unknown> | undefined;
  try {
    summary = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    summary = undefined;
  }
  expectNoLeak(result);
  return { ...result, ...(summary === undefined ? {} : { summary }) };
}

/** The key and the proxy password never show, and an expected error has no stack trace. */
function expectNoLeak(result: CliResult): void {
  const all = result.stdout + result.stderr;
  if (all.includes(KEY) || all.includes(PROXY_PASSWORD)) throw new Error(`a secret was printed:\n${all}`);
  if (/internal error|\n\s+at /.test(result.stderr)) throw new Error(`a stack trace was printed:\n${result.stderr}`);
}

/** Run the CLI with its module loads recorded (test/helpers/record-loads.js): the undici files it loaded. */
function recordLoads(): { env: Record<string, string>; undici: () => string[] } {
  const file = join(tempDir(), 'loads.json');
  return {
    env: { LOADS_FILE: file, NODE_OPTIONS: `--import=${pathToFileURL(join(REPO_ROOT, 'test/helpers/record-loads.js')).href}` },
    undici: () => (JSON.parse(readFileSync(file, 'utf8')) as { modules: string[] }).modules.filter((path) => path.includes('/node_modules/undici/')),
  };
}

describe('HTTP_PROXY, HTTPS_PROXY and NO_PROXY', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--api-key', KEY]);
  });
  /** The sandbox's request count from now on. */
  const requestsSince = async (): Promise<() => Promise<number>> => {
    const before = (await sandbox.stats()).requests;
    return async () => (await sandbox.stats()).requests - before;
  };

  it('HTTP_PROXY (NO_PROXY empty): every request goes through the proxy, the sandbox receives every row, and only then is the proxy code loaded', async ({ expect }) => {
    const proxy = await startProxy();
    const requests = await requestsSince();
    const loads = recordLoads();
    const run = await publish(sandbox.url, 30, { HTTP_PROXY: proxy.url, NO_PROXY: '', ...loads.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({ published: 30, requests: 30 });
    expect(await requests()).toBe(30);
    expect(proxy.tunnels.length, 'tunnels opened').toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(sandbox.url).host]));
    // Every request crossed the proxy: 30 listing POSTs in the bytes it relayed.
    expect(proxy.relayed().match(/POST \/v1\/listings HTTP\/1\.1/g)).toHaveLength(30);
    expect(loads.undici().some((path) => path.endsWith('/dispatcher/proxy-agent.js'))).toBe(true);
    expect(loads.undici().some((path) => path.endsWith('/undici/index.js'))).toBe(false);
  });

  it('NO_PROXY naming the host bypasses the proxy; so does a loopback service while NO_PROXY is not set at all (and no proxy code is loaded)', async ({ expect }) => {
    const proxy = await startProxy();
    const requests = await requestsSince();
    const named = await publish(sandbox.url, 5, { HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: 'localhost, 127.0.0.1' });
    expect(named.code, named.stderr).toBe(0);
    const loads = recordLoads();
    const unset = await publish(sandbox.url, 5, { HTTP_PROXY: proxy.url, ...loads.env });
    expect(unset.code, unset.stderr).toBe(0);
    expect(proxy.tunnels, 'no request went through the proxy').toEqual([]);
    expect(proxy.forwards).toBe(0);
    expect(await requests()).toBe(10);
    expect(loads.undici().some((path) => path.endsWith('/dispatcher/pool.js'))).toBe(true);
    expect(loads.undici().filter((path) => path.includes('proxy'))).toEqual([]);
  });

  it('a proxy that refuses the tunnel stops the run at once (exit 3) naming the proxy, its answer and what to do, never its password', async ({ expect }) => {
    const proxy = await startProxy({ refuse: 407 });
    const requests = await requestsSince();
    const withLogin = proxy.url.replace('http://', `http://build:${PROXY_PASSWORD}@`);
    const run = await publish(sandbox.url, 50, { HTTP_PROXY: withLogin, NO_PROXY: '' });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`cannot reach ${sandbox.url} through the proxy ${proxy.url} (from HTTP_PROXY): the proxy refused the tunnel (HTTP 407 Proxy Authentication Required)`);
    expect(run.stderr).toMatch(/hint\s+the proxy did not accept the login in HTTP_PROXY/);
    expect(run.summary).toMatchObject({ published: 0, not_attempted: 50 });
    expect(proxy.tunnels.length).toBeLessThanOrEqual(8);

    const down = await publish(sandbox.url, 5, { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '' });
    expect(down.code, down.stderr).toBe(3);
    expect(down.stderr).toContain('cannot reach the proxy http://127.0.0.1:9 (from HTTP_PROXY): connection refused (ECONNREFUSED)');
    expect(down.stderr).toMatch(/hint\s+check HTTP_PROXY, or name the service's host in NO_PROXY/);
    expect(await requests()).toBe(0);
  });

  it('plain http is refused before any connection: to a host that is not loopback, and through a proxy that is not', async ({ expect }) => {
    const proxy = await startProxy();
    const requests = await requestsSince();
    const remote = await publish('http://listings.internal.example:8080', 3, { HTTP_PROXY: proxy.url, NO_PROXY: '' });
    expect(remote.code, remote.stderr).toBe(2);
    expect(remote.stderr).toMatch(/refusing to send the API key over plain http to listings\.internal\.example:8080/);
    const throughRemote = await publish(sandbox.url, 3, { HTTP_PROXY: 'http://proxy.internal.example:3128', NO_PROXY: '' });
    expect(throughRemote.code, throughRemote.stderr).toBe(2);
    expect(throughRemote.stderr).toContain(`refusing to send the API key over plain http through the proxy http://proxy.internal.example:3128 (from HTTP_PROXY) to ${new URL(sandbox.url).host}`);
    expect(throughRemote.stderr).toMatch(/hint\s+use https .*NO_PROXY.*--allow-insecure-http/);
    expect(proxy.tunnels).toEqual([]);
    expect(proxy.forwards).toBe(0);
    expect(await requests()).toBe(0);
  });
});

describe.skipIf(!OPENSSL)('https: CONNECT tunnels and self-signed certificates', () => {
  const certs = (() => {
    if (!OPENSSL) return undefined;
    const dir = tempDir('listings-cert-');
    const own = selfSignedCertificate(dir);
    const ownPath = join(dir, 'service.pem');
    writeFileSync(ownPath, own.cert);
    const otherDir = tempDir('listings-cert-');
    const otherPath = join(otherDir, 'other.pem');
    writeFileSync(otherPath, selfSignedCertificate(otherDir).cert);
    return { ...own, ownPath, otherPath };
  })();

  it('a self-signed certificate: exit 3 naming NODE_EXTRA_CA_CERTS, nothing sent; with NODE_EXTRA_CA_CERTS every row is published', async ({ expect }) => {
    const service = await startTlsService(certs!.key, certs!.cert);
    // Unset: a CI image may point it at the system bundle, which changes the hint (the next test covers that case).
    const refused = await publish(service.url, 20, { NODE_EXTRA_CA_CERTS: undefined });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/self-signed/);
    expect(refused.stderr).toMatch(/hint\s+.*point NODE_EXTRA_CA_CERTS at the certificate/);
    expect(service.created()).toBe(0);
    const trusted = await publish(service.url, 20, { NODE_EXTRA_CA_CERTS: certs!.ownPath });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.summary).toMatchObject({ published: 20 });
    expect(service.created()).toBe(20);
  });

  it('NODE_EXTRA_CA_CERTS set to a file without the certificate, or to no file: the hint says which', async ({ expect }) => {
    const service = await startTlsService(certs!.key, certs!.cert);
    const wrong = await publish(service.url, 3, { NODE_EXTRA_CA_CERTS: certs!.otherPath });
    expect(wrong.code, wrong.stderr).toBe(3);
    expect(wrong.stderr).toContain(`NODE_EXTRA_CA_CERTS is set to ${certs!.otherPath}, but it does not hold the certificate`);
    const missing = join(tempDir(), 'nowhere.pem');
    const none = await publish(service.url, 3, { NODE_EXTRA_CA_CERTS: missing });
    expect(none.code, none.stderr).toBe(3);
    expect(none.stderr).toContain(`NODE_EXTRA_CA_CERTS is set to ${missing}, which cannot be read`);
    expect(service.created()).toBe(0);
  });

  it('HTTPS_PROXY: an https service is reached through CONNECT tunnels, and the proxy never sees the key', async ({ expect }) => {
    const service = await startTlsService(certs!.key, certs!.cert);
    const proxy = await startProxy();
    const run = await publish(service.url, 30, { HTTPS_PROXY: proxy.url, NO_PROXY: '', NODE_EXTRA_CA_CERTS: certs!.ownPath });
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({ published: 30 });
    expect(service.created()).toBe(30);
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(service.url).host]));
    expect(proxy.forwards).toBe(0);
    const relayed = proxy.relayed();
    expect(relayed.length, 'the proxy relayed the TLS traffic').toBeGreaterThan(1000);
    expect(relayed).not.toContain(KEY);
    expect(relayed).not.toContain('POST /v1/listings');
  });
});
