import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { requestSchemaFor } from '../../../src/contract/index.js';
import { ConfigError } from '../../../src/errors.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../src/sandbox/index.js';
import { sandboxStarter } from '../../helpers/sandbox-in-process.js';

const KEY = 'sk_sandbox_unit_0123456789';
const AUTH = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const POLICIES = { merchant_location_key: 'loc-1', fulfillment_policy_id: 'f-1', payment_policy_id: 'p-1', return_policy_id: 'r-1' };
const flat = (sku: string, extra: Record<string, unknown> = {}) => ({ sku, marketplace: 'EBAY_US', ...POLICIES, ...extra });
const wrapped = (sku: string, title = `Title of ${sku}`) => ({ marketplace: 'ebay', payload: { sku, title } });

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

async function call(url: string, options: { method?: 'GET' | 'POST' | 'PUT'; path?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const response = await request(`${url}${options.path ?? '/v1/listings'}`, {
    method: options.method ?? 'POST',
    headers: options.headers ?? AUTH,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

const post = (sandbox: Sandbox, body: unknown, headers: Record<string, string> = AUTH) => call(sandbox.url, { body, headers });

const sandboxWith = sandboxStarter({ apiKey: KEY });

describe('the contract', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxWith();
  });

  it('creates a flat listing: 201 with the four fields, derived deterministically, plus extra fields', async () => {
    const body = flat('SKU-1', { overrides: { condition: 'NEW', brand: 'Acme', item_color: 'red' }, images_source: ['https://img/1.jpg'] });
    const first = await post(sandbox, body);
    expect(first.status).toBe(201);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.json).toEqual({
      sku: 'SKU-1',
      status: 'ready',
      title: 'SKU-1 - NEW - EBAY_US',
      item_specifics: ['Condition', 'Marketplace', 'Brand', 'Item Color', 'Images'],
      listing_id: expect.stringMatching(/^lst_[0-9a-f]{16}$/) as unknown,
      marketplace: 'EBAY_US',
    });
    expect((await post(sandbox, body)).text).toBe(first.text);
  });

  it('creates a wrapped listing with the payload title', async () => {
    const reply = await post(sandbox, { marketplace: 'ebay', payload: { sku: 'W-1', title: 'Blue mug', color: 'blue' } });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ sku: 'W-1', status: 'ready', title: 'Blue mug', item_specifics: ['Marketplace', 'Color'], marketplace: 'ebay' });
  });

  it('serves exactly /v1/listings: a base URL with a path shows as a 404 that says which path it serves', async () => {
    const prefixed = await call(sandbox.url, { path: '/tenant-a/v1/listings', body: wrapped('P-1') });
    expect(prefixed.status).toBe(404);
    expect(prefixed.json).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining('POST /v1/listings at its root') as unknown } });
    expect((await call(sandbox.url, { path: '/v1/listings/', body: wrapped('P-1') })).status).toBe(404);
    expect((await call(sandbox.url, { path: '/v1/listings?x=1', body: wrapped('P-2') })).status).toBe(201);
  });

  it('one SKU on two marketplaces is two listings; the same pair twice is a duplicate', async () => {
    const own = await sandboxWith();
    expect((await post(own, flat('M-1', { marketplace: 'EBAY_US' }))).status).toBe(201);
    expect((await post(own, flat('M-1', { marketplace: 'EBAY_GB' }))).status).toBe(201);
    expect(own.stats()).toMatchObject({ created: 2, duplicates: 0 });
    expect((await post(own, flat('M-1', { marketplace: 'EBAY_GB', overrides: { condition: 'USED' } }))).status).toBe(201);
    expect(own.stats()).toMatchObject({ created: 2, duplicates: 1 });
  });

  it('401 on a missing or wrong key, never echoing the key presented', async () => {
    const missing = await post(sandbox, wrapped('A'), { 'content-type': 'application/json' });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ error: { code: 'unauthorized' } });
    const presented = 'sk_presented_by_client_9876';
    const wrong = await post(sandbox, wrapped('A'), { ...AUTH, authorization: `Bearer ${presented}` });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: { code: 'unauthorized', message: expect.any(String) as unknown } });
    expect(wrong.text).not.toContain(presented);
    expect(wrong.text).not.toContain(KEY);
    expect((await post(sandbox, wrapped('A'), { ...AUTH, authorization: `Basic ${KEY}` })).status).toBe(401);
    expect((await post(sandbox, wrapped('A'), { ...AUTH, authorization: `bearer ${KEY}` })).status).toBe(201);
  });

  it('415 on a content type other than application/json (parameters allowed)', async () => {
    expect((await post(sandbox, wrapped('C'), { ...AUTH, 'content-type': 'text/plain' })).status).toBe(415);
    const missing = await post(sandbox, wrapped('C'), { authorization: AUTH.authorization });
    expect(missing.status).toBe(415);
    expect(missing.json).toMatchObject({ error: { code: 'unsupported_media_type' } });
    expect((await post(sandbox, wrapped('C'), { ...AUTH, 'content-type': 'Application/JSON; charset=utf-8' })).status).toBe(201);
  });

  it('400 with field errors in the documented error shape', async () => {
    const reply = await post(sandbox, { ...flat('B-1'), images_source: ['https://img/1.jpg', ''], colour: 'red' });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      error: {
        code: 'invalid_request',
        message: expect.stringContaining('images_source[1]') as unknown,
        details: [
          { field: 'images_source[1]', message: 'must not be empty' },
          { field: 'colour', message: 'is not a field of the request' },
        ],
      },
    });
    const wrongShape = await post(sandbox, { marketplace: 'EBAY_US', payload: { sku: 'x' } });
    expect(wrongShape.status).toBe(400);
    expect((wrongShape.json as { error: { details: { field: string }[] } }).error.details.map((d) => d.field)).toEqual(['marketplace', 'payload.title']);
  });

  it('400 on a body that is not JSON or not an object', async () => {
    for (const body of ['{"sku":', '[1,2]', 'null', '"text"', '']) {
      const reply = await post(sandbox, body);
      expect(reply.status, body).toBe(400);
      expect(reply.json, body).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });

  it('400 on what the client refuses too: JSON past 64 levels, a key given twice, a __proto__ key (never a 201 that changed it)', async () => {
    const base = JSON.stringify(flat('SKU-D', {})).slice(0, -1);
    const deep = `${base},"overrides":{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const cases: [string, string][] = [
      [deep, 'the body is nested deeper than 64 levels'],
      [`${base},"overrides":{"condition":"NEW","condition":"USED"}}`, 'the body holds the key "condition" twice in one object, so one of its values would be lost'],
      [`${base},"overrides":{"__proto__":{"condition":"NEW"}}}`, 'the body holds the key "__proto__" (at overrides.__proto__), which no field of a listing has'],
      [`${base},"overrides":{"\\u005f_proto__":{"condition":"NEW"}}}`, 'the body holds the key "__proto__" (at overrides.__proto__), which no field of a listing has'],
    ];
    for (const [body, message] of cases) {
      const reply = await post(sandbox, body);
      expect(reply.status, message).toBe(400);
      expect(reply.json).toMatchObject({ error: { code: 'invalid_request', message } });
    }
    expect((await post(sandbox, `${base},"overrides":{"condition":"NEW"}}`)).status).toBe(201);
  });

  it('404 JSON on other paths, 405 with Allow on other methods', async () => {
    const notFound = await call(sandbox.url, { path: '/v2/listings', body: wrapped('N') });
    expect(notFound.status).toBe(404);
    expect(notFound.json).toMatchObject({ error: { code: 'not_found' } });
    const notAllowed = await call(sandbox.url, { method: 'GET' });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.allow).toBe('POST');
    expect((await call(sandbox.url, { method: 'PUT', body: wrapped('N') })).status).toBe(405);
    expect((await call(sandbox.url, { method: 'POST', path: '/_sandbox/stats', body: '{}' })).status).toBe(405);
  });
});

describe('saved Marketplace configurations (rules 1 and 2)', () => {
  const withoutPolicies = { sku: 'S-1', marketplace: 'EBAY_GB', overrides: { condition: 'USED' } };

  it('without saved defaults, the location key and the three policy ids are required', async () => {
    const reply = await post(await sandboxWith(), withoutPolicies);
    expect(reply.status).toBe(400);
    const fields = (reply.json as { error: { details: { field: string }[] } }).error.details.map((d) => d.field);
    expect(fields).toEqual(['merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id']);
  });

  it('with saved defaults they may be omitted', async () => {
    const reply = await post(await sandboxWith({ savedDefaults: true }), withoutPolicies);
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ sku: 'S-1', title: 'S-1 - USED - EBAY_GB' });
  });
});

describe('agreement with the contract schemas', () => {
  const bodies: unknown[] = [
    flat('ok'),
    wrapped('ok'),
    { sku: 'only', marketplace: 'EBAY_US' },
    flat(' '),
    flat('x', { marketplace: 'ebay' }),
    flat('x', { marketplace: 'EBAY' }),
    flat('x', { marketplace: 'EBAY_MOTORS_US' }),
    flat('x', { images_source: [] }),
    flat('x', { images_source: 'https://img/1.jpg' }),
    flat('x', { overrides: { condition: '' } }),
    flat('x', { overrides: { condition: 'NEW', anything: { nested: true } } }),
    flat('x', { fulfillment_policy_id: 7 }),
    flat('x', { payload: undefined, title: 'no title in flat' }),
    { marketplace: 'ebay', payload: { sku: 'x' } },
    { marketplace: 'ebay', payload: { sku: 'x', title: 'T', brand: 'Acme' } },
    { marketplace: 'ebay-motors', payload: { sku: 'x', title: 'T' } },
    { marketplace: 'ebay', payload: { sku: 'x', title: 'T' }, sku: 'x' },
    { marketplace: 'ebay', payload: null },
    { marketplace: 'ebay', payload: 'x' },
    {},
  ];

  for (const savedDefaults of [false, true]) {
    it(`201 exactly when the schema accepts (savedDefaults=${savedDefaults})`, async () => {
      const sandbox = await sandboxWith({ savedDefaults });
      for (const body of bodies) {
        const shape = body !== null && typeof body === 'object' && 'payload' in body ? 'wrapped' : 'flat';
        const accepted = requestSchemaFor(shape, savedDefaults).safeParse(body).success;
        expect((await post(sandbox, body)).status, JSON.stringify(body)).toBe(accepted ? 201 : 400);
      }
    });
  }
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, 422 for another body', async () => {
    const sandbox = await sandboxWith();
    const headers = { ...AUTH, 'idempotency-key': 'key-1' };
    const first = await post(sandbox, flat('I-1'), headers);
    const again = await post(sandbox, flat('I-1'), headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const conflict = await post(sandbox, flat('I-1', { overrides: { condition: 'USED' } }), headers);
    expect(conflict.status).toBe(422);
    expect(conflict.json).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    expect(sandbox.stats()).toMatchObject({ requests: 3, created: 1, replayed: 1, duplicates: 0, by_status: { '201': 2, '422': 1 } });
  });

  it('does not bind a key to a body that was rejected', async () => {
    const sandbox = await sandboxWith();
    const headers = { ...AUTH, 'idempotency-key': 'key-2' };
    expect((await post(sandbox, { sku: 'I-2', marketplace: 'EBAY_US' }, headers)).status).toBe(400);
    expect((await post(sandbox, flat('I-2'), headers)).status).toBe(201);
    expect(sandbox.stats()).toMatchObject({ created: 1, replayed: 0 });
  });

  it('counts a (marketplace, SKU) created again without a matching key as a duplicate', async () => {
    const sandbox = await sandboxWith();
    await post(sandbox, flat('D-1'));
    await post(sandbox, flat('D-1'));
    await post(sandbox, flat('D-1'), { ...AUTH, 'idempotency-key': 'a' });
    await post(sandbox, wrapped('D-1'), { ...AUTH, 'idempotency-key': 'b' });
    await post(sandbox, wrapped('D-2'), { ...AUTH, 'idempotency-key': 'b2' });
    await post(sandbox, wrapped('D-2'), { ...AUTH, 'idempotency-key': 'b2' });
    // D-1 on EBAY_US three times (two duplicates), D-1 on ebay once (another listing), D-2 once plus a replay.
    expect(sandbox.stats()).toMatchObject({ requests: 6, created: 3, duplicates: 2, replayed: 1 });
  });

  it('400 on an empty or overlong key', async () => {
    const sandbox = await sandboxWith();
    expect((await post(sandbox, flat('K'), { ...AUTH, 'idempotency-key': 'k'.repeat(256) })).status).toBe(400);
    expect((await post(sandbox, flat('K'), { ...AUTH, 'idempotency-key': 'k'.repeat(255) })).status).toBe(201);
  });
});

describe('fault injection', () => {
  async function statuses(options: SandboxOptions, count: number): Promise<number[]> {
    const sandbox = await sandboxWith(options);
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await post(sandbox, wrapped(`F-${i}`))).status);
    return seen;
  }

  it('failRate answers 500 or 503 at random, repeatably with a seed', async () => {
    const first = await statuses({ failRate: 0.5, seed: 42 }, 30);
    expect(await statuses({ failRate: 0.5, seed: 42 }, 30)).toEqual(first);
    expect(new Set(first)).toEqual(new Set([201, 500, 503]));
    expect(await statuses({ failRate: 0.5, seed: 43 }, 30)).not.toEqual(first);
  });

  it('failStatus fixes the code; failures are not processed', async () => {
    const sandbox = await sandboxWith({ failRate: 1, failStatus: 503 });
    for (let i = 0; i < 5; i++) {
      const reply = await post(sandbox, wrapped('X'));
      expect(reply.status).toBe(503);
      expect(reply.json).toMatchObject({ error: { code: 'service_unavailable' } });
    }
    expect(sandbox.stats()).toMatchObject({ requests: 5, created: 0, by_status: { '503': 5 } });
  });

  it('rateLimit answers 429 with Retry-After and a JSON error beyond N per second', async () => {
    const sandbox = await sandboxWith({ rateLimit: 5, retryAfterSeconds: 7 });
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => post(sandbox, wrapped(`R-${i}`))));
    const created = replies.filter((reply) => reply.status === 201);
    const limited = replies.filter((reply) => reply.status === 429);
    // A burst of one second's worth passes; a slow machine may refill one more token during the burst.
    expect(created.length).toBeGreaterThanOrEqual(5);
    expect(created.length).toBeLessThanOrEqual(6);
    expect(created.length + limited.length).toBe(12);
    expect(limited[0]?.headers['retry-after']).toBe('7');
    expect(limited[0]?.json).toMatchObject({ error: { code: 'rate_limited' } });
    expect(sandbox.stats()).toMatchObject({ throttled: limited.length, created: created.length });
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await post(sandbox, wrapped('R-later'))).status).toBe(201);
  });

  it('latency delays every answer, by a fixed time or within a range', async () => {
    const timed = async (sandbox: Sandbox): Promise<number> => {
      const start = performance.now();
      expect((await post(sandbox, wrapped('L'))).status).toBe(201);
      return performance.now() - start;
    };
    expect(await timed(await sandboxWith({ latency: 60 }))).toBeGreaterThanOrEqual(58);
    const ranged = await sandboxWith({ latency: { min: 30, max: 80 }, seed: 1 });
    for (let i = 0; i < 4; i++) {
      const ms = await timed(ranged);
      expect(ms).toBeGreaterThanOrEqual(28);
      expect(ms).toBeLessThan(2000);
    }
  });

  it('dropRate processes the request, then closes the socket unanswered; a retry with the key replays', async () => {
    const sandbox = await sandboxWith({ dropRate: 1 });
    await expect(post(sandbox, flat('DROP-1'))).rejects.toMatchObject({ code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET)$/) as unknown });
    expect(sandbox.stats()).toMatchObject({ requests: 1, created: 1, dropped: 1, by_status: {} });

    // With seed 2 at dropRate 0.5 the first two answers are dropped, the third arrives.
    const flaky = await sandboxWith({ dropRate: 0.5, seed: 2 });
    const headers = { ...AUTH, 'idempotency-key': 'drop-key' };
    let attempts = 0;
    let reply: Reply | undefined;
    while (reply === undefined && attempts < 20) {
      attempts++;
      reply = await post(flaky, flat('DROP-2'), headers).catch(() => undefined);
    }
    expect(attempts).toBeGreaterThan(1);
    expect(reply?.status).toBe(201);
    expect(reply?.headers['idempotent-replayed']).toBe('true');
    expect(flaky.stats()).toMatchObject({ created: 1, duplicates: 0, dropped: attempts - 1, replayed: attempts - 1 });
  });

  it('maxBodyBytes answers 413, by Content-Length or while reading a chunked body', async () => {
    const sandbox = await sandboxWith({ maxBodyBytes: 200 });
    const big = flat('BIG', { images_source: ['https://img/'.padEnd(300, 'x')] });
    const declared = await post(sandbox, big);
    expect(declared.status).toBe(413);
    expect(declared.json).toMatchObject({ error: { code: 'payload_too_large' } });
    const chunks = [Buffer.from(JSON.stringify(big).slice(0, 150)), Buffer.from(JSON.stringify(big).slice(150))];
    const response = await request(`${sandbox.url}/v1/listings`, {
      method: 'POST',
      headers: AUTH,
      // A stream has no Content-Length: the limit is enforced while reading.
      body: Readable.from(chunks),
    });
    expect(response.statusCode).toBe(413);
    await response.body.text();
    expect((await post(sandbox, wrapped('small'))).status).toBe(201);
  });
});

describe('stats and lifecycle', () => {
  it('GET /_sandbox/stats needs no key and is not counted', async () => {
    const sandbox = await sandboxWith();
    await post(sandbox, wrapped('S-1'));
    await post(sandbox, wrapped('S-2'), { 'content-type': 'application/json' });
    await call(sandbox.url, { path: '/nowhere', body: '{}' });
    const reply = await call(sandbox.url, { method: 'GET', path: '/_sandbox/stats', headers: {} });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ requests: 3, created: 1, replayed: 0, duplicates: 0, dropped: 0, throttled: 0, overloaded: 0, peak_in_flight: 1, peak_queued: 0, by_status: { '201': 1, '401': 1, '404': 1 } });
    expect(sandbox.stats()).toEqual(reply.json);
  });

  it('close() ends pending answers and connections', async () => {
    const sandbox = await startSandbox({ port: 0, latency: 10_000 });
    const pending = post(sandbox, wrapped('P')).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await sandbox.close();
    await sandbox.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await pending).toBeInstanceOf(Error);
    await expect(post(sandbox, wrapped('P'))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects bad options and a port in use with a ConfigError', async () => {
    await expect(startSandbox({ failRate: 2 })).rejects.toThrow(ConfigError);
    await expect(startSandbox({ latency: { min: 5, max: 1 } })).rejects.toThrow(/latency/);
    const taken = await sandboxWith();
    const port = Number(new URL(taken.url).port);
    await expect(startSandbox({ port })).rejects.toThrow(/already in use/);
  });
});
