import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startScriptedService, type SeenRequest } from '../helpers/fake-services.js';
import { hasKcat, NO_KCAT, produce, startKafkaMock, waitForCommitted } from '../helpers/kafka-mock.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, filesBelow, HEADER, publishEnv, writeCatalog } from '../helpers/publish.js';

/*
 * The remote surfaces as an attacker's (issue 21, "inputs of this kind that are not in your corpus will be tried
 * too"): what the service answers to create and doctor, what an S3-compatible store lists and answers, what a Kafka
 * topic holds. Each case spawns the built binary against a hostile server on 127.0.0.1 and states what must hold:
 * the command ends in bounded time, no secret is shown even in part, no text from outside forges a line of output,
 * a hostile message is dead-lettered with its reason. Older hostile-answer cases are in test/e2e/hostile-servers.test.ts.
 */

const KEY = 'KEYCANARY-7f3a9c1e5b';
/** A start of the key long enough to be a leak (maskSecret shows 3 characters). */
const KEY_PART = KEY.slice(0, 4);
const LISTING = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'F-1', '--payment-policy-id', 'P-1', '--return-policy-id', 'R-1', '--condition', 'NEW'];
const CREATE = ['create', 'SKU-1', '--image', 'https://images.example.com/a.jpg', ...LISTING, '--timeout', '2000'];

/** The built binary in a fresh working directory (doctor checks the state directory there). */
const run = (args: string[], env: Record<string, string>, timeoutMs = 20_000) => runCli(args, { cwd: tempDir('remote-run-'), env, timeoutMs });

/** The key the request carried (Bearer), for servers that echo it. */
const keyOf = (request: SeenRequest): string => String(request.headers.authorization ?? '').replace(/^Bearer /, '');

/** A chunked body that never ends: 1 MiB every 10 ms until the client hangs up. */
function endless(status: number) {
  return (_request: SeenRequest, response: ServerResponse): void => {
    response.writeHead(status, { 'content-type': 'application/json', date: new Date().toUTCString() });
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const timer = setInterval(() => response.write(chunk), 10);
    response.once('close', () => clearInterval(timer));
  };
}

describe.concurrent('doctor against an answer whose body never ends', () => {
  for (const status of [200, 400]) {
    it(`${status} with an endless body: the check ends within --timeout, nothing crashes`, async ({ expect }) => {
      const service = await startScriptedService(endless(status));
      const started = Date.now();
      const result = await run(['doctor', '--timeout', '1500'], publishEnv(service.url, KEY));
      expect(Date.now() - started, result.stderr).toBeLessThan(10_000);
      expect([0, 3], result.stderr).toContain(result.code);
      expect(result.stdout + result.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(result.stdout + result.stderr).toMatch(/request +POST \/v1\/listings/);
    });
  }
});

describe.concurrent('doctor against an answer that breaks HTTP/1.1', () => {
  it('a 101 Switching Protocols that names no Upgrade: one line that says so, not undici\'s assertion', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.socket?.end('HTTP/1.1 101 Switching Protocols\r\n\r\n');
    });
    const result = await run(['doctor', '--timeout', '2000'], publishEnv(service.url, KEY));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^✖ request +POST \/v1\/listings: http:\/\/127\.0\.0\.1:\d+ answered something that is not HTTP\/1\.1: the answer breaks the HTTP\/1\.1 protocol \(ERR_ASSERTION\)$/m);
    expect(result.stdout).not.toMatch(/assert|got no answer/);
  });

  it('a server that speaks another protocol (an SSH banner, then a line with ESC): it answered, with something that is not HTTP', async ({ expect }) => {
    const port = await notHttpServer();
    const result = await run(['doctor', '--timeout', '2000'], publishEnv(`http://127.0.0.1:${port}`, KEY));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^✖ request +POST \/v1\/listings: http:\/\/127\.0\.0\.1:\d+ answered something that is not HTTP\/1\.1: Response does not match the HTTP\/1\.1 protocol/m);
    expect(result.stdout).toMatch(/^ +fix: another kind of server listens at this address: check the port of base_url; if the service speaks https, base_url starts with https:\/\/$/m);
    expect(result.stdout).not.toMatch(/got no answer|cannot reach/);
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout + result.stderr).not.toContain(KEY_PART);
  });

  it('create against that server: not "cannot reach" (it was reached), and the same hint', async ({ expect }) => {
    const port = await notHttpServer();
    const result = await run(CREATE, publishEnv(`http://127.0.0.1:${port}`, KEY));
    expect(result.code, result.stderr).not.toBe(0);
    expect(result.stderr).toMatch(/^error http:\/\/127\.0\.0\.1:\d+ answered something that is not HTTP\/1\.1: Response does not match the HTTP\/1\.1 protocol/m);
    expect(result.stderr).toMatch(/^hint +another kind of server listens at this address/m);
    expect(result.stderr).not.toMatch(/cannot reach/);
    expect(result.stderr).not.toContain('\u001b');
  });

  it('a 304 Not Modified is called what it is, not a redirect (it names no address to go to)', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.writeHead(304, { location: 'https://elsewhere.example/' }).end();
    });
    const result = await run(['doctor', '--timeout', '2000'], publishEnv(service.url, KEY));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^✖ request +POST \/v1\/listings with an empty listing \(\{\}\) answered 304 Not Modified in \d+ ms, which is no answer to this request: a POST is not a conditional request$/m);
    expect(result.stdout).toMatch(/^ +fix: check base_url: a cache or proxy in front of the service may be answering for it$/m);
    expect(result.stdout).not.toMatch(/redirect|elsewhere/);
  });

  it('a 302 without a Location is a redirect that names no address, in doctor and in create (it said "redirected")', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.writeHead(302).end();
    });
    const env = publishEnv(service.url, KEY);
    const doctor = await run(['doctor', '--timeout', '2000'], env);
    expect(doctor.code, doctor.stderr).toBe(3);
    expect(doctor.stdout).toMatch(/^✖ request +POST \/v1\/listings .* 302 .*: a redirect that names no address \(no Location header\)$/m);
    expect(doctor.stdout).not.toMatch(/redirected/);
    const create = await run(['create', 'SKU-1', '--marketplace', 'EBAY_US', '--image', 'https://img.example/1.jpg', '--merchant-location-key', 'L1', '--fulfillment-policy-id', 'F', '--payment-policy-id', 'P', '--return-policy-id', 'R', '--condition', 'NEW'], env);
    expect(create.stderr).toMatch(/HTTP 302: a redirect that names no address \(no Location header\); not a listing/);
    expect(create.stderr).not.toMatch(/redirected|internal error/);
  });
});

const OTHER_PROTOCOLS: Server[] = [];
afterAll(() => Promise.all(OTHER_PROTOCOLS.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));

/** A tiny server of another protocol on 127.0.0.1: an SSH banner and a line holding ESC, to whatever connects. */
async function notHttpServer(): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\u001b[2Jprotocol mismatch\r\n'));
  });
  OTHER_PROTOCOLS.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe.concurrent('an answer compressed though no compression was asked for', () => {
  const listingOf = (request: SeenRequest): Buffer => Buffer.from(JSON.stringify({ sku: (JSON.parse(request.body) as { sku: string }).sku, status: 'ready', title: 'T', item_specifics: [] }));
  const codings: Array<[string, (body: Buffer) => Buffer]> = [
    ['gzip', (body) => gzipSync(body)],
    ['deflate', (body) => deflateSync(body)],
    ['br', (body) => brotliCompressSync(body)],
    ['gzip, br', (body) => brotliCompressSync(gzipSync(body))],
  ];
  for (const [coding, encode] of codings) {
    it(`${coding}: read, and every row published (it asked for identity)`, async ({ expect }) => {
      const service = await startScriptedService((request, response) => {
        response.writeHead(201, { 'content-type': 'application/json', 'content-encoding': coding });
        response.end(encode(listingOf(request)));
      });
      const dir = tempDir('remote-coding-');
      const result = await runCli(['publish', writeCatalog(dir, 3), '--max-attempts', '1', '--report', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(service.url, KEY) });
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(join(dir, 'r.csv'), 'utf8').match(/,published,/g)).toHaveLength(3);
      expect(service.requests.every((request) => request.headers['accept-encoding'] === 'identity')).toBe(true);
    });
  }

  it('a 100 KB gzip body that decodes to 100 MB: not a listing (exit 3), never held whole; an error body so is cut', async ({ expect }) => {
    const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20));
    const service = await startScriptedService((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(bomb);
    });
    const result = await run(CREATE, publishEnv(service.url, KEY));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain('HTTP 201: the answer is larger than 1 MiB, so not a listing');
    const failing = await startScriptedService((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(bomb);
    });
    const failed = await run(CREATE, publishEnv(failing.url, KEY));
    expect(failed.code, failed.stderr).toBe(3);
    expect(failed.stderr).toMatch(/HTTP 500/);
    expect(failed.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('a coding this client does not read, or a broken one: the row fails saying so', async ({ expect }) => {
    for (const [coding, body, said] of [
      ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), 'it is encoded as "zstd", which this client does not read'],
      ['gzip', Buffer.from('not gzip at all'), 'its gzip encoding is broken'],
    ] as const) {
      const service = await startScriptedService((_request, response) => {
        response.writeHead(201, { 'content-type': 'application/json', 'content-encoding': coding });
        response.end(body);
      });
      const result = await run(CREATE, publishEnv(service.url, KEY));
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toContain(`HTTP 201: the answer cannot be read: ${said}`);
    }
  });
});

describe.concurrent('create shows the listing the service sent on one line per field', () => {
  it('a line break (and a runner command after it) in status, title, item_specifics or a key is written \\u000a', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sku: 'SKU-1', status: 'ready\n✔ fake line', title: 'T\n::error::pwned', item_specifics: ['\n::add-mask::x'], 'k\nfake': 'v\r\nforged' }));
    });
    const result = await run(CREATE, publishEnv(service.url, KEY));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines, result.stdout).toHaveLength(4);
    expect(lines[0]).toBe('✔ SKU-1  ready\\u000a✔ fake line  (HTTP 201)');
    expect(lines[1]).toBe('  title           T\\u000a::error::pwned');
    expect(lines[2]).toBe('  item specifics  \\u000a::add-mask::x');
    expect(lines[3]).toBe('  k\\u000afake     v\\u000d\\u000aforged');
  });

  it('a field of 150 KB (status, title, item_specifics, a key, a value) is shown cut short, as in the reports', async ({ expect }) => {
    const huge = (c: string) => `${c}\u001b[2J`.repeat(15_000);
    const service = await startScriptedService((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sku: 'SKU-1', status: huge('s'), title: huge('t'), item_specifics: [huge('i')], [huge('k')]: { nested: huge('v') } }));
    });
    const result = await run(CREATE, publishEnv(service.url, KEY));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines, result.stdout.slice(0, 2000)).toHaveLength(4);
    for (const line of lines) {
      expect(line.length, line.slice(0, 200)).toBeLessThan(700);
      expect(line).toMatch(/…/);
    }
  });

  // Pushback (429) and a transient 4xx (408, 425) say the service is busy or slow, not that the listing is wrong.
  for (const status of [429, 408]) {
    it(`a ${status} is the service's, not the listing's: an error (exit 3), never "rejected" (exit 1)`, async ({ expect }) => {
      const service = await startScriptedService((_request, response) => {
        response.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ message: 'slow down' }));
      });
      const result = await run(CREATE, publishEnv(service.url, KEY));
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(new RegExp(`^error HTTP ${status} [A-Za-z ]+: slow down$`, 'm'));
      expect(result.stderr).not.toMatch(/rejected/);
    });
  }
});

/** No stdout or stderr holds the key, nor a start of it that a cut left behind. */
function expectNoKeyPart(expect: ExpectStatic, text: string): void {
  expect(text, text.slice(0, 2000)).not.toContain(KEY_PART);
  expect(text).not.toMatch(/internal error|\n\s+at /);
}

describe.concurrent('a secret the server echoes where the tool cuts its text is not shown in part', () => {
  // The Location is shown cut to 200 characters: the key starts a few characters before the cut.
  for (const pad of [165, 172]) {
    it(`a redirect whose Location holds the key at character ${pad + 21} (create and doctor)`, async ({ expect }) => {
      const service = await startScriptedService((request, response) => {
        response.writeHead(302, { location: `https://evil.example/${'p'.repeat(pad)}${keyOf(request)}` }).end();
      });
      const created = await run(CREATE, publishEnv(service.url, KEY));
      expect(created.code, created.stderr).toBe(3);
      expect(created.stderr).toMatch(/redirected to https:\/\/evil\.example\/p+/);
      expectNoKeyPart(expect, created.stdout + created.stderr);
      const doctor = await run(['doctor', '--timeout', '2000'], publishEnv(service.url, KEY));
      expect(doctor.code, doctor.stderr).toBe(3);
      expectNoKeyPart(expect, doctor.stdout + doctor.stderr);
    });
  }

  // An error body is read to 64 KiB (doctor's probe to 16 KiB); white space first, so the shown message starts at the
  // key. The body comes in two writes, the first ending inside the key, so that a read that stops there has a part.
  for (const [command, status, at] of [['create', 422, 64 * 1024], ['doctor', 500, 16 * 1024]] as const) {
    it(`${command}: a ${status} whose body holds the key across the end of what is read (${at / 1024} KiB)`, async ({ expect }) => {
      const service = await startScriptedService((request, response) => {
        response.writeHead(status, { 'content-type': 'text/plain' });
        const body = `${' '.repeat(at - 4)}${keyOf(request)} and more text after it ${'z'.repeat(100_000)}`;
        response.write(body.slice(0, at + 4));
        setTimeout(() => response.end(body.slice(at + 4)), 100);
      });
      const result = await run(command === 'create' ? CREATE : ['doctor', '--timeout', '2000'], publishEnv(service.url, KEY));
      expect(result.code, result.stderr).toBe(command === 'create' ? 1 : 3);
      expectNoKeyPart(expect, result.stdout + result.stderr);
    });
  }

  // A message is cut at 300 characters. The key JSON-escaped (as `\u004b...`, or `\/` for a `/`) is whole only once
  // parsed: masked after the cut, its start would show.
  const escapedKey = (request: SeenRequest): string => `\\u${keyOf(request).charCodeAt(0).toString(16).padStart(4, '0')}${keyOf(request).slice(1)}`;
  for (const command of ['create', 'publish'] as const) {
    it(`${command}: a 422 whose JSON message holds the key escaped, where the message is cut`, async ({ expect }) => {
      const service = await startScriptedService((request, response) => {
        response.writeHead(422, { 'content-type': 'application/json' });
        response.end(`{"message":"${'m'.repeat(290)}${escapedKey(request)} and more"}`);
      });
      const dir = tempDir('remote-escaped-');
      const args = command === 'create' ? CREATE : ['publish', writeCatalog(dir, 2), '--max-attempts', '1', '--report', join(dir, 'r.csv'), '--report', join(dir, 'r.json')];
      const result = await runCli(args, { cwd: dir, env: publishEnv(service.url, KEY) });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/HTTP 422 Unprocessable Entity: m{290}\*/);
      expectNoKeyPart(expect, result.stdout + result.stderr);
      for (const path of filesBelow(dir)) expect(readFileSync(path, 'utf8'), path).not.toContain(KEY_PART);
    });
  }

  it('doctor: a Date header (not an HTTP date: a comment after it) holding the key where it is cut', async ({ expect }) => {
    const service = await startScriptedService((request, response) => {
      response.writeHead(400, { 'content-type': 'application/json', date: `Thu, 01 Jan 2020 00:00:00 GMT (${'d'.repeat(60)}${keyOf(request)})` });
      response.end('{"message":"empty listing"}');
    });
    const result = await run(['doctor', '--timeout', '2000'], publishEnv(service.url, KEY));
    expect(result.stdout).toMatch(/Date header is not an HTTP date \(Thu, 01 Jan 2020 00:00:00 GMT \(d+/);
    expectNoKeyPart(expect, result.stdout + result.stderr);
  });

  it('publish: the same cut 422 body, in every report and the journal', async ({ expect }) => {
    const service = await startScriptedService((request, response) => {
      response.writeHead(422, { 'content-type': 'text/plain' });
      response.end(`${' '.repeat(64 * 1024 - 6)}${keyOf(request)}${'z'.repeat(100_000)}`);
    });
    const dir = tempDir('remote-publish-');
    const catalog = writeCatalog(dir, 2);
    const reports = ['r.csv', 'r.json', 'r.ndjson', 'r.xml', 'r.html'];
    const result = await runCli(['publish', catalog, '--max-attempts', '1', ...reports.flatMap((name) => ['--report', join(dir, name)])], { cwd: dir, env: publishEnv(service.url, KEY) });
    expect(result.code, result.stderr).toBe(1);
    expectNoKeyPart(expect, result.stdout + result.stderr);
    for (const name of reports) expect(readFileSync(join(dir, name), 'utf8'), name).not.toContain(KEY_PART);
    for (const path of filesBelow(join(dir, '.listings'))) expect(readFileSync(path, 'utf8'), path).not.toContain(KEY_PART);
  });
});

/** The environment of a run against a fake S3 endpoint (its secret key is a canary). */
const AWS_SECRET = 'awsSECRETcanary/9d8e7f6a5b4c';

function s3Env(endpoint: string): Record<string, string> {
  return { AWS_ACCESS_KEY_ID: 'AKIAREMOTE', AWS_SECRET_ACCESS_KEY: AWS_SECRET, AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_S3: endpoint, LISTINGS_API_KEY: KEY };
}

/** A ListObjectsV2 page of `keys` keys that says more follow, its token one past the one asked for. */
function listPage(request: IncomingMessage | SeenRequest, keys: number): string {
  const token = new URL(request.url ?? '/', 'http://x').searchParams.get('continuation-token') ?? '0';
  const page = Number(token) + 1;
  const contents = Array.from({ length: keys }, (_, i) => `<Contents><Key>p/${page}-${i}.csv</Key><Size>10</Size></Contents>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bucket</Name><Prefix>p/</Prefix><KeyCount>${keys}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>${page}</NextContinuationToken>${contents}</ListBucketResult>`;
}

describe.concurrent('an S3-compatible store that is hostile', () => {
  it('a prefix listing that pages without end: stopped at 100,000 objects (exit 4), not a loop that fills memory', async ({ expect }) => {
    const store = await startScriptedService((request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(listPage(request, 1000));
    });
    const result = await run(['validate', 's3://bucket/p/'], s3Env(store.url), 30_000);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/more than 100,000 objects under this prefix/);
    expect(store.count()).toBeLessThanOrEqual(101);
  });

  it('a listing that hands back the same continuation token: stopped at once', async ({ expect }) => {
    const store = await startScriptedService((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(listPage({ url: '/?continuation-token=7' } as SeenRequest, 1).replace('<NextContinuationToken>8<', '<NextContinuationToken>7<'));
    });
    const result = await run(['validate', 's3://bucket/p/'], s3Env(store.url));
    expect(result.code, result.stderr).toBe(4);
    expect(store.count()).toBeLessThanOrEqual(3);
  });

  /**
   * An answer of `status` whose body never ends (1 MiB every 2 ms, as fast as the client takes it) until the client
   * hangs up; counts what it sent. Paced by the client's reading, so what it sent is what the client took (plus the
   * socket's buffers), not what piled up in this server while a busy machine kept the client from reading.
   */
  function endlessXml(status: number, sent: { bytes: number }) {
    return (_request: SeenRequest, response: ServerResponse): void => {
      response.writeHead(status, { 'content-type': 'application/xml' });
      response.write('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>false</IsTruncated><Prefix>');
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let closed = false;
      response.once('close', () => {
        closed = true;
      });
      const pump = (): void => {
        if (closed) return;
        sent.bytes += chunk.length;
        if (response.write(chunk)) setTimeout(pump, 2);
        else response.once('drain', pump);
      };
      pump();
    };
  }

  for (const [what, status, source] of [['a listing page', 200, 's3://bucket/p/'], ['an error answer', 500, 's3://bucket/cat.csv']] as const) {
    it(`${what} that never ends: cut at 16 MiB (exit 4), not held whole in memory`, async ({ expect }) => {
      const sent = { bytes: 0 };
      const store = await startScriptedService(endlessXml(status, sent));
      const result = await run(['validate', source], s3Env(store.url), 30_000);
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toContain(`error ${source}: the store's answer is larger than 16 MiB`);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at |Deserialization/);
      expect(sent.bytes).toBeLessThan(256 * 1024 * 1024);
    });
  }

  it('a listing 100,000 elements deep: the store answered something unreadable (exit 4), not the SDK\'s note about hidden fields', async ({ expect }) => {
    const store = await startScriptedService((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0"?><ListBucketResult>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}<IsTruncated>false</IsTruncated></ListBucketResult>`);
    });
    const result = await run(['validate', 's3://bucket/p/'], s3Env(store.url));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^error s3:\/\/bucket\/p\/: the store's answer \(HTTP 200\) is not one the AWS SDK can read: RangeError: Maximum call stack size exceeded$/m);
    expect(result.stderr).not.toMatch(/hidden field|\$response|\n\s+at /);
  });

  it('a 307 redirect (to another host) with no body: named as a redirect that is not followed, not "Unknown: UnknownError"', async ({ expect }) => {
    const store = await startScriptedService((_request, response) => {
      response.writeHead(307, { location: 'http://127.0.0.2:9/elsewhere' }).end();
    });
    const result = await run(['validate', 's3://bucket/cat.csv'], s3Env(store.url));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^error s3:\/\/bucket\/cat\.csv: the store answered a redirect \(HTTP 307\), which is not followed$/m);
    expect(result.stderr).toMatch(/^hint +check the endpoint and the region/m);
    expect(result.stderr).not.toMatch(/Unknown|127\.0\.0\.2/);
  });

  it('a session token holding a line break: the credential is named at fault, not "cannot reach the store"', async ({ expect }) => {
    const store = await startScriptedService((_request, response) => response.writeHead(200).end('sku\nA\n'));
    const result = await run(['validate', 's3://bucket/cat.csv'], { ...s3Env(store.url), AWS_SESSION_TOKEN: 'SESSIONcanary\n##[error]x' });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^error s3:\/\/bucket\/cat\.csv: the AWS session token holds a character that cannot be sent in a header \(a line break\?\)$/m);
    expect(result.stderr).not.toMatch(/cannot reach|SESSIONcanary|##\[error\]/);
    expect(store.count()).toBe(0);
  });

  it('a listing of keys longer than S3 allows (1,024 bytes): refused at the first, not kept (10,000 pages of one 16 MiB key would be 160 GB)', async ({ expect }) => {
    const store = await startScriptedService((request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(listPage(request, 1).replace(/<Key>p\//, `<Key>p/${'k'.repeat(2000)}`));
    });
    const result = await run(['validate', 's3://bucket/p/'], s3Env(store.url));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^error s3:\/\/bucket\/p\/: the store listed a key longer than 1,024 bytes, which S3 does not allow$/m);
    expect(store.count()).toBe(1);
  });

  it('a listing whose continuation tokens go round (A, B, A, ...): stopped when one comes back', async ({ expect }) => {
    const store = await startScriptedService((request, response) => {
      response.writeHead(200, { 'content-type': 'application/xml' });
      const asked = new URL(request.url ?? '/', 'http://x').searchParams.get('continuation-token');
      response.end(listPage({ url: '/?continuation-token=7' } as SeenRequest, 1).replace('<NextContinuationToken>8<', `<NextContinuationToken>${asked === 'A' ? 'B' : 'A'}<`));
    });
    const result = await run(['validate', 's3://bucket/p/'], s3Env(store.url));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/pages without end/);
    expect(store.count()).toBeLessThanOrEqual(4);
  });

  for (const size of ['abc', '1e308']) {
    it(`a listed object size of ${size}, then an object cut part-way: what is not read is "its size unknown", not NaN or a 300-digit count`, async ({ expect }) => {
      const store = await startScriptedService((request, response) => {
        const url = new URL(request.url ?? '/', 'http://x');
        if (url.searchParams.get('list-type') === '2') {
          response.writeHead(200, { 'content-type': 'application/xml' });
          response.end(`<?xml version="1.0"?><ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>p/a.csv</Key><Size>${size}</Size></Contents><Contents><Key>p/b.csv</Key><Size>10</Size></Contents></ListBucketResult>`);
        } else if (url.pathname.endsWith('b.csv')) {
          response.writeHead(200, { 'content-type': 'text/csv', 'content-length': '500' });
          response.write('sku,title\nB-1,Th');
          setTimeout(() => response.destroy(), 100);
        } else {
          response.writeHead(200, { 'content-type': 'text/csv' }).end('sku,title\nA-1,Thing\n');
        }
      });
      const result = await run(['validate', 's3://bucket/p/', ...LISTING], s3Env(store.url));
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toMatch(/^stopped: the rest of the source \(its size unknown\) not read/m);
      expect(result.stderr).not.toMatch(/NaN|\d{1,3}(,\d{3}){6}/);
    });
  }

  it('an error whose message holds the AWS secret key where it is cut (300 characters): not shown in part', async ({ expect }) => {
    const secret = AWS_SECRET;
    const store = await startScriptedService((_request, response) => {
      response.writeHead(418, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>Teapot</Code><Message>${'m'.repeat(292)}${secret}\u001b[2J</Message></Error>`);
    });
    const result = await run(['validate', 's3://bucket/cat.csv'], s3Env(store.url));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/Teapot \(HTTP 418\): m+/);
    expect(result.stderr).not.toContain(secret.slice(0, 4));
    expect(result.stderr).not.toContain('\u001b');
  });
});

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

describe.skipIf(!kcat)('a Kafka topic of hostile messages', () => {
  it('SKUs with control or direction characters (in the key or the value) are dead-lettered with the reason; the rest is published', async ({ expect }) => {
    const [mock, sandbox] = await Promise.all([startKafkaMock(1), startSandboxProcess(['--api-key', KEY])]);
    const dir = tempDir('remote-stream-');
    const topic = 'hostile';
    const messages = [
      { key: 'K-\u001b[2J', value: '{"title":"t"}' },
      { key: '', value: '{"sku":"V-\\u0007bell"}' },
      { key: 'K-\u202eRTL', value: '{"title":"t"}' },
      { key: '::error::pwned', value: '{"title":"t"}' },
      { key: 'K-OK', value: '{"title":"t"}' },
    ];
    const child = spawnCli(['stream', `kafka://${mock.bootstrap}/${topic}`, '--group', 'g', ...LISTING, '--dead-letter', 'dead.ndjson', '--session-timeout', '6000'], {
      cwd: dir,
      env: { LISTINGS_BASE_URL: sandbox.url, LISTINGS_API_KEY: KEY },
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await produce(mock.bootstrap, topic, messages);
      await waitForCommitted(mock.bootstrap, 'g', topic, messages.length, () => stderr);
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
      const letters = readFileSync(join(dir, 'dead.ndjson'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { key?: string; value: string; reason: string });
      const reasons = new Map(letters.map((letter) => [letter.key || letter.value, letter.reason]));
      expect(reasons.get('K-\u001b[2J')).toMatch(/sku: holds a control character \(U\+001B\)/);
      expect(reasons.get('{"sku":"V-\\u0007bell"}')).toMatch(/sku: holds a control character \(U\+0007\)/);
      expect(reasons.get('K-\u202eRTL')).toMatch(/sku: holds a direction control \(U\+202E\)/);
      expect(letters, JSON.stringify(letters)).toHaveLength(3);
      for (const raw of ['\u001b', '\u0007', '\u202e']) expect(stderr).not.toContain(raw);
      expect(stderr).not.toMatch(/^::/m);
      expect(stderr).toMatch(/2 published · 3 dead-lettered/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await Promise.all([mock.stop(), sandbox.stop()]);
    }
  }, 60_000);
});

// Held when written (kept as one cheap line each): a publish whose hostile listing text reaches the HTML report.
describe.concurrent('reports of a hostile listing', () => {
  it('HTML report: no markup from the service (</script>, <img onerror>), CSV: formulas quoted', async ({ expect }) => {
    const service = await startScriptedService((_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sku: 'x', status: '=HYPERLINK("http://evil","x")', title: '</script><script>alert(1)</script><img src=x onerror=alert(2)>', item_specifics: [] }));
    });
    const failing = await startScriptedService((_request, response) => {
      response.writeHead(422, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: '</script><script>alert(3)</script>\u2028' }));
    });
    for (const url of [service.url, failing.url]) {
      const dir = tempDir('remote-html-');
      const catalog = writeCatalog(dir, 2, 'catalog.csv', (i) => csvRow(i));
      const result = await runCli(['publish', catalog, '--max-attempts', '1', '--report', join(dir, 'r.html'), '--report', join(dir, 'r.csv')], { cwd: dir, env: publishEnv(url, KEY) });
      expect([0, 1], result.stderr).toContain(result.code);
      const html = readFileSync(join(dir, 'r.html'), 'utf8');
      expect(html.match(/<\/script/gi)?.length ?? 0, 'only the report\'s own </script>').toBeLessThanOrEqual(html.match(/<script/gi)?.length ?? 0);
      expect(html).not.toMatch(/<script>alert|<img src=x/);
      expect(readFileSync(join(dir, 'r.csv'), 'utf8')).not.toMatch(/(^|,)"?=HYPERLINK/m);
    }
  });
});

/** A catalog server on 127.0.0.1 that writes `answer` (status line, headers and body) on each connection, then closes it. */
async function rawCatalogServer(answer: Buffer): Promise<{ url: string; close: () => void }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalog.csv`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe.concurrent('an http(s) catalog source', () => {
  // Before: the whole gzip body and the server's FIN came while the reader was behind; undici's paused parser
  // asserted `!this.paused` on the FIN (nodejs/undici#5360) and the process died: exit 1 and a stack trace.
  it('a gzip catalog sent whole by a server that then closes the connection: every row validated, no crash', async ({ expect }) => {
    const rows = 40_000;
    const body = gzipSync(`${HEADER}\n${Array.from({ length: rows }, (_, i) => csvRow(i)).join('\n')}\n`);
    const server = await rawCatalogServer(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]));
    try {
      const result = await run(['validate', server.url], {});
      expect(result.stderr).not.toMatch(/AssertionError|\n\s+at /);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr + result.stdout).toMatch(/^40,000 rows: 40,000 valid, 0 invalid$/m);
    } finally {
      server.close();
    }
  });

  // Before: the page's markup was read as a CSV header, validate proposed `--map 'title=<!DOCTYPE html>…'` and
  // ended in "has no sku column" (exit 2, a usage error), as if the user had named the wrong column.
  it('a 200 that is an HTML error page: "is an HTML page, not a catalog", exit 4', async ({ expect }) => {
    const page = '<!DOCTYPE html><html><head><title>Error</title></head><body><h1>Session expired</h1></body></html>';
    const server = await rawCatalogServer(Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\n\r\n${page}`));
    try {
      const result = await run(['validate', server.url], {});
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toContain(`error ${server.url}: is an HTML page (Content-Type: text/html), not a catalog`);
      expect(result.stderr).not.toMatch(/--map|sku column/);
    } finally {
      server.close();
    }
  });
});
