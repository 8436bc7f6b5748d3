import { describe, expect, it } from 'vitest';
import { summarize } from '../../../src/listen/callback.js';
import { MAX_JSON_DEPTH, scanJsonText } from '../../../src/json-text.js';
import { isLoopbackHost } from '../../../src/listen/loopback.js';
import { listenOptionIssues } from '../../../src/listen/options.js';
import { redactPath } from '../../../src/listen/redact-path.js';
import { replayable } from '../../../src/listen/replayable.js';
import type { RecordedCallback } from '../../../src/listen/recording.js';

describe('scanJsonText: nesting measured on the text, before any value is built', () => {
  const cases: [string, string, number][] = [
    ['a scalar', '42', 0],
    ['an empty object', '{}', 1],
    ['an object in an array', '[{"a":1}]', 2],
    ['siblings do not add up', '[[1],[2],{"a":[3]}]', 3],
    ['brackets inside strings do not count', '{"a":"[[[{{{"}', 1],
    ['an escaped quote does not end the string', '{"a":"\\"[[["}', 1],
    ['an escaped backslash does end it', '["\\\\",[[1]]]', 3],
    ['text that is not JSON still counts its brackets', 'x [[ y', 2],
  ];
  it.each(cases)('%s', (_name, text, depth) => {
    expect(scanJsonText(text).depth).toBe(depth);
  });

  it('measures a million-deep text without recursion, and the limit exactly', () => {
    expect(scanJsonText('['.repeat(1_000_000)).depth).toBe(1_000_000);
    expect(scanJsonText('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)).depth).toBe(MAX_JSON_DEPTH);
  });

  it('summarize does not parse a body nested deeper than the limit, and parses one at the limit', () => {
    const deep = Buffer.from('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000));
    expect(summarize({ headers: {}, body: deep })).toEqual({ text: deep.toString(), tooDeep: true });
    const atLimit = Buffer.from('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH));
    expect(summarize({ headers: {}, body: atLimit }).tooDeep).toBeUndefined();
    // Plain text that happens to hold many brackets is text, not refused JSON.
    expect(summarize({ headers: {}, body: Buffer.from(`note ${'['.repeat(1_000)}`) }).tooDeep).toBeUndefined();
  });
});

describe('a listener on an address other machines reach needs a secret, or --allow-unsigned', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['::ffff:10.0.0.1', false],
    ['my-laptop.lan', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('refuses a non-loopback host without a secret, unless unsigned callbacks are allowed', () => {
    expect(listenOptionIssues({ host: '0.0.0.0' }).map((issue) => issue.path)).toEqual(['host']);
    expect(listenOptionIssues({ host: '0.0.0.0', secret: 'whsec_x' })).toEqual([]);
    expect(listenOptionIssues({ host: '0.0.0.0', allowUnsigned: true })).toEqual([]);
    expect(listenOptionIssues({ host: '127.0.0.1' })).toEqual([]);
    expect(listenOptionIssues({ maxConnections: 0, requestTimeoutSeconds: 0 }).map((issue) => issue.path)).toEqual(['maxConnections', 'requestTimeoutSeconds']);
  });
});

describe('redactPath: what a recording and the terminal keep of a request path', () => {
  it.each([
    ['/hooks', '/hooks'],
    ['/hooks?x=1&y=2', '/hooks?x=1&y=2'],
    ['/hooks?token=abc&x=1', '/hooks?token=****&x=1'],
    ['/?access_token=a&api_key=b&apiKey=c&secret=d&sig=e&password=f&x=g', '/?access_token=****&api_key=****&apiKey=****&secret=****&sig=****&password=****&x=g'],
    ['/?X-Amz-Signature=abc#frag', '/?X-Amz-Signature=****#frag'],
    ['/?token', '/?token'],
  ])('%s -> %s', (path, shown) => {
    expect(redactPath(path)).toBe(shown);
  });
});

describe('replayable: a recorded line is input from outside', () => {
  const record = (fields: Partial<RecordedCallback>): RecordedCallback => ({ received_at: '', method: 'POST', path: '/', headers: {}, body_encoding: 'utf8', body: '{}', ...fields });

  it.each(['CONNECT', 'TRACE', 'GET', 'DELETE', 'post', ''])('skips the method %j', (method) => {
    expect(replayable(record({ method }))).toEqual({ skipped: `method ${method}: only POST and PUT are sent again` });
  });

  it('sends valid headers (lower-cased), and names each one left out with why', () => {
    const headers = {
      'Content-Type': 'application/json',
      'Listings-Signature': 't=1,v1=ab',
      'bad header': 'x',
      'x-nul': 'a\u0000b',
      'x-newline': 'a\r\nInjected: 1',
      Host: 'evil.example',
      Authorization: 'Bearer x',
      Cookie: 'a=b',
      'proxy-authorization': 'Basic x',
      'Content-Length': '5',
      'Transfer-Encoding': 'chunked',
      Connection: 'upgrade',
    };
    const result = replayable(record({ method: 'PUT', headers }));
    if (!('request' in result)) throw new Error('expected a request');
    expect(result.request.method).toBe('PUT');
    expect(result.request.headers).toEqual({ 'content-type': 'application/json', 'listings-signature': 't=1,v1=ab' });
    expect(result.dropped).toEqual([
      { name: 'bad header', reason: 'not a valid header name' },
      { name: 'x-nul', reason: 'its value holds characters a header may not' },
      { name: 'x-newline', reason: 'its value holds characters a header may not' },
      { name: 'Host', reason: 'it belongs to one connection' },
      { name: 'Authorization', reason: 'it carries credentials' },
      { name: 'Cookie', reason: 'it carries credentials' },
      { name: 'proxy-authorization', reason: 'it carries credentials' },
      { name: 'Content-Length', reason: 'it belongs to one connection' },
      { name: 'Transfer-Encoding', reason: 'it belongs to one connection' },
      { name: 'Connection', reason: 'it belongs to one connection' },
    ]);
  });

  it('sends the body bytes as recorded', () => {
    const result = replayable(record({ body_encoding: 'base64', body: Buffer.from([0, 255]).toString('base64') }));
    expect('request' in result && [...result.request.body]).toEqual([0, 255]);
  });

  it('skips a body that is not the base64 a recording writes (it would decode to other bytes in silence)', () => {
    for (const body of ['!!!notbase64\u001b[2J', 'AP8', 'AP8=\n', 'A P8=']) {
      expect(replayable(record({ body_encoding: 'base64', body }))).toEqual({ skipped: 'its body is not the base64 a recording writes, so its bytes are not known' });
    }
  });

  it('keeps a header named __proto__ (a valid name) as any other, not dropped by the assignment', () => {
    const headers = JSON.parse('{"__proto__":"x","content-type":"text/plain"}') as Record<string, string>;
    const result = replayable(record({ headers }));
    if (!('request' in result)) throw new Error('expected a request');
    expect(Object.keys(result.request.headers)).toEqual(['__proto__', 'content-type']);
    expect(result.request.headers.__proto__).toBe('x');
  });
});
