import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ListingsClient } from '../../../src/client/listings-client.js';
import { errorMessage, parseErrorBody, shortText } from '../../../src/client/error-message.js';
import { terminalSafe } from '../../../src/printable.js';
import { ApiError, TimeoutError } from '../../../src/errors.js';

/**
 * The client against hostile answers, at the level of one request: bodies that trickle or never end, bodies far too
 * large, markup built to make a regular expression backtrack, a hostile Location. The end-to-end view (the built
 * binary's terminal and reports) is test/e2e/hostile-servers.test.ts.
 */

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server | undefined;
let client: ListingsClient | undefined;
const timers = new Set<NodeJS.Timeout>();
/** Bytes the server managed to write to the client, per test. */
let written = 0;

afterEach(async () => {
  for (const timer of timers) clearInterval(timer);
  timers.clear();
  await client?.destroy();
  client = undefined;
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

async function clientFor(answer: Answer, timeoutMs = 5_000): Promise<ListingsClient> {
  written = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', (socket: Socket) => socket.on('error', () => undefined));
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  client = new ListingsClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_test_hostile', connections: 2, timeoutMs });
  return client;
}

/** Writes `chunk` every `everyMs` until the client hangs up: a body that never ends. */
function endless(res: ServerResponse, chunk: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (res.destroyed) clearInterval(timer);
    else if (res.write(chunk)) written += chunk.length;
    else written += chunk.length;
  }, everyMs);
  timers.add(timer);
  res.once('close', () => clearInterval(timer));
}

describe('ListingsClient against hostile answers', () => {
  for (const status of [201, 422]) {
    it(`times out a ${status} body that trickles a byte at a time, at the timeout from the headers on`, async () => {
      const c = await clientFor((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.write('{"message":"');
        endless(res, 'a', 50);
      }, 400);
      const started = Date.now();
      const error = await c.postListingJson('{}').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).phase).toBe('body');
      expect(Date.now() - started).toBeLessThan(2_000);
    });
  }

  it('stops reading an endless error body after 64 KiB: an ApiError at once, the connection closed', async () => {
    const c = await clientFor((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('overloaded \u001b]0;pwned\u0007 ');
      endless(res, 'z'.repeat(16 * 1024), 1);
    });
    const error = (await c.postListingJson('{}').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
    expect(error.message).toMatch(/^HTTP 500 Internal Server Error: overloaded \\u001b\]0;pwned\\u0007 z+…$/);
    expect(error.message.length).toBeLessThan(400);
  });

  it('does not read a 2xx answer past 1 MiB: a listing is a few hundred bytes', async () => {
    const c = await clientFor((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.write('{"sku":"A","status":"ready","title":"');
      endless(res, 't'.repeat(64 * 1024), 1);
    });
    const error = (await c.postListingJson('{}').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(201);
    expect(error.message).toMatch(/the answer is larger than 1 MiB/);
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('a 201 with an empty body is an ApiError saying so', async () => {
    const c = await clientFor((_req, res) => res.writeHead(201).end());
    await expect(c.postListingJson('{}')).rejects.toThrow(/^HTTP 201: the answer is not JSON$/);
  });

  it('shows a redirect Location escaped and cut short, and follows nothing', async () => {
    let requests = 0;
    const c = await clientFor((_req, res) => {
      requests++;
      res.writeHead(308, { location: `https://elsewhere.example/\u009b2J${'q'.repeat(5_000)}` }).end();
    });
    const error = (await c.postListingJson('{}').catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(308);
    expect(error.message).toMatch(/^HTTP 308: the service redirected to https:\/\/elsewhere\.example\/\\u009b2Jq+…; not followed/);
    expect(error.message.length).toBeLessThan(400);
    expect(requests).toBe(1);
  });
});

describe('error messages from hostile bodies', () => {
  it('strips markup in linear time: a million unclosed `<` or `<script ` cost milliseconds, not seconds', () => {
    for (const body of ['<'.repeat(1_000_000), '<script '.repeat(125_000), '<style>'.repeat(140_000), `<a${' '.repeat(1_000_000)}`]) {
      const started = performance.now();
      const message = errorMessage(400, body);
      expect(performance.now() - started).toBeLessThan(250);
      expect(message.length).toBeLessThan(400);
    }
  });

  it('bounds a JSON message and escapes its controls', () => {
    const message = errorMessage(422, parseErrorBody(JSON.stringify({ message: `\u001b[2J${'\u0007'.repeat(1_000_000)}` })));
    expect(message).toMatch(/^HTTP 422 Unprocessable Entity: \\u001b\[2J(\\u0007)+…$/);
    expect(message.length).toBeLessThan(400);
  });

  it('shortText never cuts an escape or a surrogate pair in two', () => {
    expect(shortText(`${'a'.repeat(8)}\u001b`, 10)).toBe('aaaaaaaa…');
    expect(shortText(`${'a'.repeat(8)}😀😀`, 10)).toBe('aaaaaaaa…');
    expect(shortText('  a\n\tb  ', 10)).toBe('a b');
  });
});

describe('terminalSafe: the last guard of stdout and stderr', () => {
  it('writes out every control character but tab and LF, and the bidi controls', () => {
    expect(terminalSafe('a\u001b]0;t\u0007b\rc\u009bd\u202ee\tf\ng', false)).toBe('a\\u001b]0;t\\u0007b\\u000dc\\u009bd\\u202ee\tf\ng');
  });
  it('writes out the line and paragraph separators (a line break to some readers), as printable does', () => {
    expect(terminalSafe('{"title":"a\u2028b\u2029c"}', false)).toBe('{"title":"a\\u2028b\\u2029c"}');
  });
  it('lets the colours through only when colours are on', () => {
    expect(terminalSafe('\u001b[31mred\u001b[39m \u001b[2J', true)).toBe('\u001b[31mred\u001b[39m \\u001b[2J');
    expect(terminalSafe('\u001b[31mred\u001b[39m', false)).toBe('\\u001b[31mred\\u001b[39m');
  });
  it('returns plain text as it is', () => {
    const text = 'catalog.csv:2: sku A: HTTP 422 Unprocessable Entity: title too long';
    expect(terminalSafe(text, true)).toBe(text);
  });
});
