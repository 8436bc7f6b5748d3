import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, REPO_ROOT, runCli } from '../helpers/cli.js';
import { startScriptedService } from '../helpers/fake-services.js';
import { ndjsonLines, post, startListen, until } from '../helpers/listen-process.js';
import { tempDir } from '../helpers/tmp.js';
import { signPayload } from '../../src/listen/signature.js';

/**
 * The hostile corpus of `listings listen`: what a stranger can send to a public webhook endpoint (bodies, slow or
 * many connections) and what a tampered recording can make `--replay` do. Each case runs the built binary.
 */

const deep = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth);
const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Bodies no listener may crash on: the status each gets. */
const BODIES: { name: string; body: string | Buffer; status: number }[] = [
  { name: 'an array 5,000 deep', body: deep(5_000), status: 400 },
  { name: 'an object 100,000 deep', body: deepObject(100_000), status: 400 },
  { name: 'an array 65 deep (one past the limit)', body: deep(65), status: 400 },
  { name: 'an array 64 deep (the limit)', body: deep(64), status: 200 },
  { name: 'brackets inside a string', body: JSON.stringify({ id: 'evt_str', note: '['.repeat(100_000) }), status: 200 },
  { name: 'text that opens 100,000 brackets and is not JSON', body: `hello ${'['.repeat(100_000)}`, status: 200 },
  { name: 'bytes that are not UTF-8', body: Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x7b]), status: 200 },
  { name: 'a number beyond a double', body: '{"id":"evt_big","amount":1e999999,"n":123456789012345678901234567890}', status: 200 },
  { name: '100,000 digits', body: '9'.repeat(100_000), status: 200 },
  { name: '__proto__ and constructor keys', body: '{"__proto__":{"id":"evt_proto","polluted":true},"constructor":{"prototype":{"x":1}},"type":"t"}', status: 200 },
  { name: 'a bare string', body: '"just a string"', status: 200 },
  { name: 'a bare array', body: '[1,2,3]', status: 200 },
  { name: 'null', body: 'null', status: 200 },
  { name: 'duplicate keys', body: '{"id":"evt_dup_a","id":"evt_dup_b","type":"x","type":{"y":1}}', status: 200 },
];

interface Client {
  socket: Socket;
  /** Resolves when the connection is closed, by either side. */
  closed: Promise<unknown>;
}

/** A raw TCP connection to the listener, its close watched from the start. */
function connectTo(url: string): Client {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {
    // the listener hangs up: that is what is tested
  });
  // Read what comes (a 408), so that the listener's end of the connection is seen.
  socket.resume();
  return { socket, closed: new Promise((resolve) => socket.once('close', resolve)) };
}

/** Milliseconds until the listener closes the connection, `drip()` written every `everyMs` meanwhile (none: idle). */
async function closedAfter({ socket, closed }: Client, drip?: () => string, everyMs = 400, giveUpMs = 20_000): Promise<number> {
  const started = Date.now();
  const timer = setInterval(() => {
    if (drip !== undefined && !socket.destroyed) socket.write(drip());
  }, everyMs);
  let giveUp: NodeJS.Timeout | undefined;
  try {
    await Promise.race([closed, new Promise((_resolve, reject) => (giveUp = setTimeout(() => reject(new Error(`the connection was still open after ${giveUpMs} ms`)), giveUpMs)))]);
  } finally {
    clearInterval(timer);
    clearTimeout(giveUp);
    socket.destroy();
  }
  return Date.now() - started;
}

describe('listings listen: hostile bodies', () => {
  for (const mode of [[], ['--json']]) {
    it(`answers each hostile body and goes on (${mode.length === 0 ? 'text' : '--json'} output)`, async () => {
      const listen = await startListen(mode);
      for (const { name, body, status } of BODIES) {
        expect(await post(listen.url, body), name).toBe(status);
      }
      // Still answering after all of them.
      expect(await post(listen.url, '{"id":"evt_after"}')).toBe(200);
      const done = await listen.stop();
      const refused = BODIES.filter((entry) => entry.status === 400).length;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toContain(`listen stopped: ${BODIES.length + 1 - refused} received, ${refused} rejected`);
      expect(done.stderr).not.toMatch(/internal error|RangeError|\n\s+at /);
      if (mode.length === 0) expect(done.stdout.match(/rejected 400 {2}JSON nested deeper than 64/g)).toHaveLength(refused);
    });
  }

  it('shows at most 4,096 characters of a body on the terminal, JSON as text: a megabyte of [0,0,...] is not half a million lines', async () => {
    const listen = await startListen([]);
    const array = `[${new Array(500_000).fill(0).join(',')}]`;
    expect(await post(listen.url, array)).toBe(200);
    expect(await post(listen.url, 'x'.repeat(100_000))).toBe(200);
    const done = await listen.stop();
    expect(done.stdout.split('\n').length).toBeLessThan(4_096);
    expect(done.stdout).toContain(`… (${JSON.stringify(JSON.parse(array), null, 2).length - 4_096} more characters)`);
    expect(done.stdout).toContain('… (95904 more characters)');
  });

  it('refuses a deep body that is validly signed (400), and the next signed one is received', async () => {
    const secret = 'whsec_hostile_depth_1';
    const listen = await startListen(['--secret-env', 'HOOK_SECRET'], { HOOK_SECRET: secret });
    const body = deep(100_000);
    expect(await post(listen.url, body, { 'listings-signature': signPayload(secret, body) })).toBe(400);
    expect(await post(listen.url, body)).toBe(401);
    const fine = '{"id":"evt_signed_ok"}';
    expect(await post(listen.url, fine, { 'listings-signature': signPayload(secret, fine) })).toBe(200);
    const done = await listen.stop();
    expect(done.stderr).toContain('listen stopped: 1 received, 2 rejected');
  });
});

describe('listings listen: slow and many connections', () => {
  it('cuts off a client that trickles its headers, or its body, within --request-timeout (+1 s), and an idle one too', async () => {
    const listen = await startListen(['--request-timeout', '2']);
    const headers = 'POST / HTTP/1.1\r\nHost: x\r\nX-Slow: ';
    let sent = 0;
    // One byte every 400 ms: never idle long, never done.
    const trickled = closedAfter(connectTo(listen.url), () => headers[sent++] ?? 'a');
    const body = connectTo(listen.url);
    body.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{');
    const slowBody = closedAfter(body, () => ' ');
    const idle = closedAfter(connectTo(listen.url));
    for (const ms of await Promise.all([trickled, slowBody, idle])) {
      expect(ms).toBeGreaterThanOrEqual(1_500);
      expect(ms).toBeLessThan(4_500);
    }
    expect(await post(listen.url, '{"id":"evt_after_slow"}')).toBe(200);
    const done = await listen.stop();
    expect(done.code).toBe(0);
  });

  it('holds at most --max-connections: one more is closed at once, and once the idle ones time out a callback is received', async () => {
    const listen = await startListen(['--max-connections', '5', '--request-timeout', '2']);
    const held = Array.from({ length: 5 }, () => connectTo(listen.url));
    await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
    const started = Date.now();
    expect(await closedAfter(connectTo(listen.url), undefined, 400, 1_500)).toBeLessThan(1_000);
    await Promise.all(held.map((client) => closedAfter(client, undefined, 400, 5_000)));
    // Cut off by the timeout, not before.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(await post(listen.url, '{"id":"evt_after_crowd"}')).toBe(200);
    const done = await listen.stop();
    expect(done.stderr).toContain('5 connections');
    expect(done.stderr).toContain('listen stopped: 1 received');
  });
});

describe('listings listen: methods other than a callback\'s', () => {
  // Before: any method was received, recorded and forwarded as it came: a DELETE, TRACE, PATCH or GET sent to the
  // listener's port reached the app behind --forward-to with that method (a replay sends only POST and PUT).
  it('DELETE, TRACE, PATCH, GET, OPTIONS get 405 (Allow: POST, PUT), are printed as rejected and never forwarded or recorded; POST and PUT are', async () => {
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const target = await startScriptedService((_request, response) => response.end('ok'));
    const listen = await startListen(['--forward-to', target.url, '--record', recording]);
    const send = (method: string): Promise<{ status: number; allow: string | undefined }> =>
      new Promise((resolve, reject) => {
        const req = request(listen.url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, allow: res.headers.allow });
        });
        req.on('error', reject);
        req.end(`{"id":"evt_${method}"}`);
      });
    for (const method of ['DELETE', 'TRACE', 'PATCH', 'GET', 'OPTIONS']) expect(await send(method), method).toEqual({ status: 405, allow: 'POST, PUT' });
    for (const method of ['POST', 'PUT']) expect((await send(method)).status, method).toBe(200);
    await until('two forwards', () => target.requests.length >= 2);
    const done = await listen.stop();
    expect(done.stderr).toContain('listen stopped: 2 received, 5 rejected, 0 duplicates, 2 forwarded');
    expect(target.requests.map((seen) => seen.method)).toEqual(['POST', 'PUT']);
    expect(ndjsonLines(recording).map((line) => line.method)).toEqual(['POST', 'PUT']);
    expect(done.stdout.match(/rejected 405 {2}not POST or PUT/g)).toHaveLength(5);
  });
});

describe('listings listen: exposure and replays', () => {
  it('refuses --host 0.0.0.0 without a secret (exit 2); with --allow-unsigned it names the real address and warns', async () => {
    const refused = await runCli(['listen', '--port', '0', '--host', '0.0.0.0'], { timeoutMs: 10_000 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--host 0.0.0.0 is reachable from other machines');
    expect(refused.stderr).toContain('--allow-unsigned');

    const open = await startListen(['--host', '0.0.0.0', '--allow-unsigned']);
    const port = new URL(open.url).port;
    expect(open.stderr()).toContain(`receiving callbacks at http://0.0.0.0:${port}/`);
    // The warning is the line after: a pipe may hand it over a moment later.
    await until('the warning', () => open.stderr().includes('warning'), 5_000);
    expect(open.stderr()).toMatch(new RegExp(`warning .*signatures are not checked on 0\\.0\\.0\\.0.*port ${port}`));
    expect(await post(open.url, '{"id":"evt_open"}')).toBe(200);
    await open.stop();

    const signed = await startListen(['--host', '0.0.0.0', '--secret-env', 'HOOK_SECRET'], { HOOK_SECRET: 'whsec_hostile_host_1' });
    expect(signed.stderr()).not.toContain('warning');
    await signed.stop();
  });

  it('receives a signed body without an id once: the same signed bytes again are a duplicate, never forwarded twice', async () => {
    const secret = 'whsec_hostile_replay_1';
    const target = await startScriptedService((_request, response) => response.end('ok'));
    const listen = await startListen(['--secret-env', 'HOOK_SECRET', '--forward-to', target.url, '--json'], { HOOK_SECRET: secret });
    const body = '{"type":"listing.updated","data":{"sku":"NO-ID-1"}}';
    const signedAt = Math.floor(Date.now() / 1000);
    const signature = signPayload(secret, body, signedAt);
    expect(await post(listen.url, body, { 'listings-signature': signature })).toBe(200);
    expect(await post(listen.url, body, { 'listings-signature': signature })).toBe(200);
    // A new delivery, signed anew (at another second than the first, whenever the posts took), is another event.
    const later = signPayload(secret, body, signedAt - 1);
    expect(await post(listen.url, body, { 'listings-signature': later })).toBe(200);
    await until('two forwards', () => target.requests.length >= 2);
    const done = await listen.stop();
    expect(done.stderr).toContain('listen stopped: 2 received, 0 rejected, 1 duplicates, 2 forwarded');
    expect(target.requests).toHaveLength(2);
    // A forwarded callback's line waits for its forward: in order of arrival by seq.
    const printed = done.stdout.trim().split('\n').map((line) => JSON.parse(line) as { seq: number; outcome: string });
    expect(printed.sort((a, b) => a.seq - b.seq).map((line) => line.outcome)).toEqual(['accepted', 'duplicate', 'accepted']);
  });

  it('reads a body as written: ids beyond a double are two events, not one duplicate; numbers are printed exactly; a key written twice is shown as text', async () => {
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const first = '{"id":12345678901234567890,"type":"listing.updated","amount":9007199254740993,"price":1.10}';
    const second = '{"id":12345678901234567891,"type":"listing.updated"}';
    const twice = '{"id":"evt_twice","sku":"A-1","sku":"B-2"}';
    for (const mode of [['--json'], []]) {
      const listen = await startListen([...mode, '--record', recording]);
      for (const body of [first, second, twice]) expect(await post(listen.url, body)).toBe(200);
      const done = await listen.stop();
      expect(done.stderr).toContain('listen stopped: 3 received, 0 rejected, 0 duplicates');
      if (mode.length > 0) {
        const printed = done.stdout.trim().split('\n');
        expect(printed[0]).toContain('"id":"12345678901234567890"');
        expect(printed[0]).toContain('"body":{"id":12345678901234567890,"type":"listing.updated","amount":9007199254740993,"price":1.10}');
        expect(printed[1]).toContain('"id":"12345678901234567891"');
        // Which sku it names is not for the listener to guess: it is shown as the text it is, not read.
        expect(JSON.parse(printed[2] ?? '')).toMatchObject({ text: twice });
        expect(printed[2]).not.toContain('"sku"');
      } else {
        expect(done.stdout).toContain('(id 12345678901234567890, POST /)');
        expect(done.stdout).toContain('"amount": 9007199254740993');
        expect(done.stdout).toContain('(id 12345678901234567891, POST /)');
        expect(done.stdout).toContain(twice);
      }
    }
    expect(ndjsonLines(recording).map((line) => line.body)).toEqual([first, second, twice, first, second, twice]);
  });

  it('every body a recording listener accepts can be replayed: 3 MB of control characters (an 18 MB line) is sent again byte for byte; a --max-body too large to record is refused', async () => {
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const refused = await runCli(['listen', '--port', '0', '--record', recording, '--max-body', '20000000']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--max-body must be at most \d+ when recording/);
    const listen = await startListen(['--record', recording, '--max-body', '4000000']);
    const body = Buffer.alloc(3_000_000, 1);
    expect(await post(listen.url, body, { 'content-type': 'application/octet-stream' })).toBe(200);
    await listen.stop();
    const target = await startScriptedService((_request, response) => response.end('ok'));
    const replay = await runCli(['listen', '--replay', recording, '--forward-to', target.url]);
    expect(replay.stderr).not.toContain('not sent');
    expect(replay.code, replay.stderr).toBe(0);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]?.body === body.toString('utf8')).toBe(true);
  });

  it('the same signed bytes under another Webhook-Id (a header the signature does not cover) are a duplicate, and teach the listener no id', async () => {
    const secret = 'whsec_hostile_replay_2';
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const listen = await startListen(['--secret-env', 'HOOK_SECRET', '--record', recording, '--json'], { HOOK_SECRET: secret });
    const body = '{"type":"listing.updated","data":{"sku":"HDR-ID-1"}}';
    const signature = signPayload(secret, body);
    expect(await post(listen.url, body, { 'listings-signature': signature, 'webhook-id': 'wh_1' })).toBe(200);
    // Replayed by whoever saw it, each time under a new id, or under the id of an event still to come.
    expect(await post(listen.url, body, { 'listings-signature': signature, 'webhook-id': 'wh_2' })).toBe(200);
    expect(await post(listen.url, body, { 'listings-signature': signature, 'webhook-id': 'wh_next' })).toBe(200);
    // The real next event, signed by the sender, with that id: received.
    const next = '{"type":"listing.updated","data":{"sku":"HDR-ID-2"}}';
    expect(await post(listen.url, next, { 'listings-signature': signPayload(secret, next), 'webhook-id': 'wh_next' })).toBe(200);
    // A redelivery of it, signed anew, with its id: a duplicate.
    expect(await post(listen.url, next, { 'listings-signature': signPayload(secret, next, Math.floor(Date.now() / 1000) - 1), 'webhook-id': 'wh_next' })).toBe(200);
    const done = await listen.stop();
    expect(done.stderr).toContain('listen stopped: 2 received, 0 rejected, 3 duplicates');
    const printed = done.stdout.trim().split('\n').map((line) => JSON.parse(line) as { outcome: string; sku: string });
    expect(printed.map((line) => [line.outcome, line.sku])).toEqual([
      ['accepted', 'HDR-ID-1'],
      ['duplicate', 'HDR-ID-1'],
      ['duplicate', 'HDR-ID-1'],
      ['accepted', 'HDR-ID-2'],
      ['duplicate', 'HDR-ID-2'],
    ]);
    expect(ndjsonLines(recording)).toHaveLength(2);
  });

  it('receives a request target in absolute form (RFC 9112 3.2.2) at --path by its path, and refuses one for another path', async () => {
    const listen = await startListen(['--path', '/hooks']);
    const { port } = new URL(listen.url);
    const send = (target: string): Promise<string> =>
      new Promise((resolve) => {
        let text = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`));
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(text));
      });
    expect(await send(`http://127.0.0.1:${port}/hooks/a?x=1`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await send(`http://127.0.0.1:${port}/other`)).toMatch(/^HTTP\/1\.1 404/);
    const done = await listen.stop();
    expect(done.stderr).toContain('listen stopped: 1 received, 1 rejected');
  });

  it('keeps credentials out of a recording: no Authorization or Cookie, the query token masked', async () => {
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const listen = await startListen(['--record', recording]);
    const url = `${listen.url}hooks?token=tok_s3cr3t_value&access_token=at_s3cr3t&x=1`;
    expect(await post(url, '{"id":"evt_cred"}', { authorization: 'Bearer sk_s3cr3t', cookie: 'session=c00k1e' })).toBe(200);
    const done = await listen.stop();
    const [line] = ndjsonLines(recording) as { path: string; headers: Record<string, string> }[];
    expect(line?.path).toBe('/hooks?token=****&access_token=****&x=1');
    expect(line?.headers.authorization).toBeUndefined();
    expect(line?.headers.cookie).toBeUndefined();
    expect(JSON.stringify(line) + done.stdout + done.stderr).not.toMatch(/s3cr3t|c00k1e/);
  });

  it('--replay of a tampered recording: bad lines skipped with located warnings, no credential or connection header sent, exit 1 (never 70)', async () => {
    const dir = tempDir();
    const recording = join(dir, 'tampered.ndjson');
    const record = (fields: Record<string, unknown>): string => JSON.stringify({ received_at: '2025-01-01T00:00:00.000Z', method: 'POST', path: '/', headers: {}, body_encoding: 'utf8', body: '{}', ...fields });
    writeFileSync(
      recording,
      [
        record({ headers: { 'bad header': 'v', 'x-kept': '1', 'x-bad-value': 'a\u0000b' }, body: '{"n":1}' }),
        record({ method: 'CONNECT', path: 'evil.example:443' }),
        record({ headers: { Host: 'evil.example', Authorization: 'Bearer stolen', cookie: 's=1', 'Proxy-Authorization': 'Basic x', 'Content-Length': '99999', 'transfer-encoding': 'chunked', connection: 'upgrade' }, body: '{"n":3}' }),
        'not json at all',
        deepObject(100_000),
        record({ method: 'TRACE' }),
        JSON.stringify({ method: 'POST', headers: { a: 1 }, body: 'x' }),
        record({ method: 'PUT', body_encoding: 'base64', body: Buffer.from([0, 1, 2]).toString('base64') }),
      ].join('\n') + '\n',
    );
    const target = await startScriptedService((_request, response) => response.end('ok'));
    const replay = await runCli(['listen', '--replay', recording, '--forward-to', target.url]);
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stderr).not.toMatch(/internal error|ERR_INVALID|\n\s+at /);
    expect(replay.stderr).toContain('replayed 3 callbacks');
    expect(replay.stderr).toContain('5 lines skipped');
    for (const located of [
      'tampered.ndjson:1: header "bad header" not sent: not a valid header name',
      'tampered.ndjson:1: header "x-bad-value" not sent',
      'tampered.ndjson:2: not sent: method CONNECT',
      'tampered.ndjson:3: header "Host" not sent',
      'tampered.ndjson:3: header "Authorization" not sent: it carries credentials',
      'tampered.ndjson:3: header "cookie" not sent',
      'tampered.ndjson:3: header "Proxy-Authorization" not sent',
      'tampered.ndjson:4: not sent: the line is not valid JSON',
      'tampered.ndjson:5: not sent: the line nests objects and arrays deeper than 64 levels',
      'tampered.ndjson:6: not sent: method TRACE',
      'tampered.ndjson:7: not sent: not a recorded callback',
    ]) {
      expect(replay.stderr).toContain(located);
    }
    expect(target.requests.map((request) => [request.method, request.body])).toEqual([
      ['POST', '{"n":1}'],
      ['POST', '{"n":3}'],
      ['PUT', '\u0000\u0001\u0002'],
    ]);
    const [first, third] = [target.requests[0], target.requests[1]];
    expect(first?.headers['x-kept']).toBe('1');
    expect(third?.headers.host).toBe(new URL(target.url).host);
    expect(third?.headers['content-length']).toBe('7');
    for (const name of ['authorization', 'cookie', 'proxy-authorization', 'transfer-encoding']) expect(third?.headers[name], name).toBeUndefined();
    expect(third?.headers.connection).not.toBe('upgrade');
  });
});

describe('listings listen: a replay of garbage', () => {
  it('--replay of 100,000 bad lines shows the first 20 warnings, located and escaped, then one line counting the rest; the summary counts them all, exit 1', async () => {
    const dir = tempDir();
    const recording = join(dir, 'garbage.ndjson');
    const signed = JSON.stringify({ received_at: '2025-01-01T00:00:00.000Z', method: 'POST', path: '/', headers: { Authorization: 'Bearer x' }, body_encoding: 'utf8', body: '{}' });
    const garbage = '\u001b]52;c;aGk=\u0007\u001b[31mnot json\r';
    writeFileSync(recording, [...Array<string>(10).fill(signed), ...Array<string>(100_000).fill(garbage), ...Array<string>(5).fill(signed)].join('\n') + '\n');
    const target = await startScriptedService((_request, response) => response.end('ok'));
    const replay = await runCli(['listen', '--replay', recording, '--forward-to', target.url], { timeoutMs: 60_000 });
    expect(replay.code, replay.stderr).toBe(1);
    const lines = replay.stderr.trimEnd().split('\n');
    const warnings = lines.filter((line) => line.startsWith('warning '));
    expect(warnings.length, replay.stderr.slice(0, 4_000)).toBe(21);
    for (const [index, warning] of warnings.slice(0, 10).entries()) expect(warning).toContain(`garbage.ndjson:${index + 1}: header "Authorization" not sent`);
    for (const [index, warning] of warnings.slice(10, 20).entries()) expect(warning).toContain(`garbage.ndjson:${index + 11}: not sent: the line is not valid JSON`);
    expect(warnings[20]).toBe('warning 99990 more lines skipped and 5 more headers not sent, not shown (only the first 20 warnings are)');
    expect(lines.length).toBeLessThanOrEqual(23);
    expect(replay.stderr).toContain('replayed 15 callbacks');
    expect(replay.stderr).toContain(', 100000 lines skipped');
    // Escaped as before: no escape sequence, bell or carriage return of the file reaches the log.
    for (const raw of ['\u001b', '\u0007', '\r']) expect(replay.stderr).not.toContain(raw);
    expect(replay.stderr).not.toMatch(/\n\s+at /);
    expect(target.requests.length).toBe(15);

    // One past the 20: one more line, counted.
    const few = join(dir, 'few.ndjson');
    writeFileSync(few, `${Array<string>(21).fill('not json').join('\n')}\n`);
    const fewer = await runCli(['listen', '--replay', few, '--forward-to', target.url]);
    expect(fewer.code, fewer.stderr).toBe(1);
    expect(fewer.stderr).toContain('few.ndjson:20: not sent');
    expect(fewer.stderr).not.toContain('few.ndjson:21:');
    expect(fewer.stderr).toContain('warning 1 more line skipped, not shown (only the first 20 warnings are)');
    expect(fewer.stderr).toContain(', 21 lines skipped');
  }, 90_000);
});

/** POST `body`; its status, or `timeout` when no answer came within `ms`. */
function postWithin(url: string, body: string, ms: number): Promise<number | 'timeout'> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: ms }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', () => resolve('timeout'));
    req.end(body);
  });
}

/** Wait for `receiving callbacks at URL` in a file the listener's stderr goes to. */
async function urlIn(file: string): Promise<string> {
  let url: string | undefined;
  await until('the listener to start', () => (url = existsSync(file) ? /receiving callbacks at (\S+)/.exec(readFileSync(file, 'utf8'))?.[1] : undefined) !== undefined);
  return url ?? '';
}

/** Callbacks a few KB each on the terminal (a pretty-printed JSON body of 200 keys): enough to fill any pipe. */
const printedBody = (n: number): string => JSON.stringify({ id: `evt_out_${n}`, type: 'listing.updated', ...Object.fromEntries(Array.from({ length: 200 }, (_, key) => [`k${key}`, 'v'.repeat(10)])) });

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
})();

describe('listings listen: output nobody reads', () => {
  // Node writes a terminal synchronously on Linux: a terminal nobody reads (Ctrl-S, a frozen session) stopped the
  // whole listener after a few callbacks, every POST unanswered (reproduced with a pty nobody reads).
  it.skipIf(!hasScript)('a terminal nobody reads: every callback is still answered at once, lines are dropped and counted, a stop ends within seconds', async () => {
    const dir = tempDir();
    const [errFile, pidFile] = [join(dir, 'stderr.txt'), join(dir, 'pid')];
    // `script` gives the listener a terminal, and copies it to its own stdout, which is never read here.
    const command = `echo $$ > '${pidFile}'; exec '${process.execPath}' '${BIN}' listen --port 0 2> '${errFile}'`;
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], { cwd: REPO_ROOT, env: cliEnv(), stdio: ['pipe', 'pipe', 'ignore'] });
    terminal.stdout.pause();
    try {
      const url = await urlIn(errFile);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      const statuses: (number | 'timeout')[] = [];
      // A blocked listener answers nothing at all: the bound is generous, for a machine busy with other tests.
      for (let n = 0; n < 3_000 && !statuses.includes('timeout'); n++) statuses.push(await postWithin(url, printedBody(n), 5_000));
      expect(statuses.filter((status) => status !== 200), `${statuses.indexOf('timeout')} callbacks answered, then none`).toEqual([]);
      expect(await postWithin(url, '{"id":"evt_probe"}', 5_000)).toBe(200);
      process.kill(pid, 'SIGTERM');
      // The stop waits 2 s for the reader; before, it waited for ever.
      await until('the listener to stop', () => readFileSync(errFile, 'utf8').includes('listen stopped:') && !/State:\s+[RSD]/.test(existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, 'utf8') : ''), 20_000);
      const stderr = readFileSync(errFile, 'utf8');
      expect(stderr).toMatch(/warning \d+ lines not shown: the output was not read/);
      expect(stderr).toContain('listen stopped: 3001 received');
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      terminal.kill('SIGKILL');
    }
  }, 60_000);

  // A pipe is written asynchronously: a reader that stalls held every line in memory (RSS 56 MB -> 376 MB after
  // 60,000 callbacks) and kept a stop waiting until the reader went away.
  it('a pipe whose reader stalls, then reads: callbacks are answered meanwhile, the lines past 1 MiB are dropped and the reader is told how many', async () => {
    const dir = tempDir();
    const [fifo, seen, go] = [join(dir, 'out.fifo'), join(dir, 'seen.txt'), join(dir, 'go')];
    execFileSync('mkfifo', [fifo]);
    // Opens the pipe at once and reads nothing until the test says so, then everything.
    const reader = spawn('sh', ['-c', 'exec 3< "$1"; while [ ! -e "$3" ]; do sleep 0.05; done; cat <&3 > "$2"', 'sh', fifo, seen, go]);
    const readerDone = once(reader, 'close');
    const fd = openSync(fifo, 'w');
    const errFile = join(dir, 'stderr.txt');
    const errFd = openSync(errFile, 'w');
    const listen = spawn(process.execPath, [BIN, 'listen', '--port', '0'], { cwd: REPO_ROOT, env: cliEnv(), stdio: ['ignore', fd, errFd] });
    closeSync(fd);
    closeSync(errFd);
    const closed = once(listen, 'close') as Promise<[number | null]>;
    try {
      const url = await urlIn(errFile);
      const statuses: (number | 'timeout')[] = [];
      for (let n = 0; n < 3_000 && !statuses.includes('timeout'); n++) statuses.push(await postWithin(url, printedBody(n), 5_000));
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      writeFileSync(go, '');
      await until('the reader to read', () => existsSync(seen) && readFileSync(seen, 'utf8').length > 0, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await postWithin(url, '{"id":"evt_after","type":"after.the.stall"}', 1_000)).toBe(200);
      listen.kill('SIGTERM');
      const [code] = await closed;
      expect(code).toBe(0);
      await readerDone;
      const stdout = readFileSync(seen, 'utf8');
      const notice = /^(\d+) lines not shown: the output was not read$/m.exec(stdout);
      expect(notice, stdout.slice(-2_000)).not.toBeNull();
      expect(stdout).toContain('after.the.stall');
      // What was shown is whole callbacks: the notice stands between two of them, never inside one's body.
      expect(stdout.indexOf(notice?.[0] ?? '')).toBeLessThan(stdout.indexOf('after.the.stall'));
      expect(stdout.length).toBeLessThan(4 * 1024 * 1024);
      const stderr = readFileSync(errFile, 'utf8');
      expect(stderr).toContain(`warning ${notice?.[1] ?? ''} lines not shown: the output was not read`);
      expect(stderr).toContain('listen stopped: 3001 received');
    } finally {
      listen.kill('SIGKILL');
      reader.kill('SIGKILL');
    }
  }, 60_000);
});

describe('listings listen: named pipes', () => {
  it('a --replay or --record named pipe no program opens fails within 10 s, naming it (never waits for ever); one a program opens is read or written', async () => {
    const dir = tempDir();
    const [input, output] = [join(dir, 'in.fifo'), join(dir, 'out.fifo')];
    execFileSync('mkfifo', [input, output]);
    const target = await startScriptedService((_request, response) => response.end('ok'));
    const started = Date.now();
    const [replay, record] = await Promise.all([
      runCli(['listen', '--replay', input, '--forward-to', target.url], { timeoutMs: 20_000 }),
      runCli(['listen', '--port', '0', '--record', output], { timeoutMs: 20_000 }),
    ]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(replay.code, replay.stderr).toBe(4);
    expect(replay.stderr).toContain('in.fifo: cannot read the recording: it is a named pipe that no program opened to write (or wrote anything to) within 10 s');
    expect(record.code, record.stderr).toBe(2);
    expect(record.stderr).toContain('out.fifo: it is a named pipe that no program opened to read within 10 s');
    expect(replay.stderr + record.stderr).not.toMatch(/\n\s+at /);

    // A writer that comes a moment later is read to its end; a reader that comes a moment later gets the recording.
    const line = JSON.stringify({ received_at: '2025-01-01T00:00:00.000Z', method: 'POST', path: '/', headers: {}, body_encoding: 'utf8', body: '{"n":1}' });
    const written = once(spawn('sh', ['-c', 'sleep 1; printf "%s\\n" "$1" > "$2"', 'sh', line, input]), 'close');
    const replayed = await runCli(['listen', '--replay', input, '--forward-to', target.url], { timeoutMs: 20_000 });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(target.requests.map((request) => request.body)).toEqual(['{"n":1}']);
    await written;
    const reader = spawn('sh', ['-c', 'sleep 1; cat "$1"', 'sh', output]);
    const readerDone = once(reader, 'close');
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (read += chunk));
    const listen = await startListen(['--record', output]);
    expect(await post(listen.url, '{"id":"evt_fifo"}')).toBe(200);
    expect((await listen.stop()).code).toBe(0);
    await readerDone;
    expect(read).toContain('"body":"{\\"id\\":\\"evt_fifo\\"}"');
  }, 40_000);

  it('a recording whose reader stops reading: past 64 MiB waiting, callbacks are refused 503 (sent again later), not held in memory; a stop ends within 10 s, exit 74', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'stalled.fifo');
    execFileSync('mkfifo', [fifo]);
    // Opens the pipe to read and never reads it.
    const reader = spawn('sh', ['-c', 'exec sleep 60 < "$1"', 'sh', fifo]);
    try {
      const listen = await startListen(['--record', fifo, '--json']);
      const body = JSON.stringify({ id: 'evt_', pad: 'x'.repeat(1_000_000) });
      const statuses: number[] = [];
      for (let sent = 0; sent < 200 && !statuses.includes(503); sent++) statuses.push(await post(listen.url, body.replace('evt_', `evt_${sent}`)));
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(60);
      expect(statuses.at(-1)).toBe(503);
      const started = Date.now();
      const done = await listen.stop();
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(done.code).toBe(74);
      expect(done.stdout).toContain('"reason":"recording_behind"');
      expect(done.stderr).toContain('were not taken by its reader within 10 s');
    } finally {
      reader.kill();
    }
  }, 60_000);
});
