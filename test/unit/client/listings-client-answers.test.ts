import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ListingsClient } from '../../../src/client/listings-client.js';
import { ApiError, UsageError } from '../../../src/errors.js';

type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server | undefined;
let client: ListingsClient | undefined;

afterEach(async () => {
  await client?.destroy();
  client = undefined;
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

async function clientFor(answer: Answer): Promise<ListingsClient> {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  client = new ListingsClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_test_answers', connections: 2, timeoutMs: 5_000 });
  return client;
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
};

describe('ListingsClient answers', () => {
  it('gives a 2xx listing as sent, extra fields kept, and sends the key, type and Idempotency-Key headers', async () => {
    let seen: IncomingMessage | undefined;
    let sent = '';
    const listing = { sku: 'A-1', status: 'ready', title: 'T', item_specifics: ['Brand'], listing_id: 'L-9' };
    const c = await clientFor((req, res, body) => {
      seen = req;
      sent = body;
      json(res, 201, listing);
    });
    const result = await c.postListingJson('{"sku":"A-1","note":"é"}', { idempotencyKey: 'lst-abc' });
    expect(result).toEqual({ status: 201, listing });
    expect(sent).toBe('{"sku":"A-1","note":"é"}');
    expect(seen?.headers.authorization).toBe('Bearer sk_test_answers');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['idempotency-key']).toBe('lst-abc');
  });

  it('rejects a 2xx answer that is not a listing, naming the fields that are wrong', async () => {
    const c = await clientFor((_req, res) => json(res, 200, { sku: 'A-1', status: 'ready', item_specifics: ['ok', 3] }));
    const error = await c.postListingJson('{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/does not match the listing contract \(title, item_specifics\.1\)/);
  });

  it('rejects a 2xx answer that is not JSON', async () => {
    const c = await clientFor((_req, res) => res.writeHead(200).end('<html>'));
    await expect(c.postListingJson('{}')).rejects.toThrow(/the answer is not JSON/);
  });

  it('reads an error answer: message from the body, Retry-After from the headers, a huge body cut short', async () => {
    const c = await clientFor((_req, res) => json(res, 503, { message: 'busy', pad: 'x'.repeat(200_000) }, { 'retry-after': '7' }));
    const error = (await c.postListingJson('{}').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(503);
    expect(error.retryAfter).toBe('7');
    // Cut at 64 KiB, the body is no longer JSON: its text is the message, shortened.
    expect(error.message).toMatch(/^HTTP 503/);
    expect(error.message.length).toBeLessThan(400);
  });

  it('an abort signal ends a request in flight with the signal reason', async () => {
    const c = await clientFor(() => undefined); // never answers
    const controller = new AbortController();
    const reason = new Error('stop now');
    const pending = c.postListingJson('{}', { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
    await expect(c.postListingJson('{}', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('onWritten is told once a request is on a connection, not while it waits for one', async () => {
    const listing = { sku: 'A-1', status: 'ready', title: 'T', item_specifics: [] };
    const held: ServerResponse[] = [];
    const c = await clientFor((_req, res) => held.push(res));
    // Two connections: the third request waits for one of them.
    const written: number[] = [];
    const answers = [1, 2, 3].map((n) => c.postListingJson(JSON.stringify({ ...listing, sku: `A-${n}` }), { onWritten: () => written.push(n) }));
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(written).toEqual([1, 2]);
    json(held.shift()!, 201, listing);
    await answers[0];
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(written).toEqual([1, 2, 3]);
    for (const res of held.splice(0)) json(res, 201, listing);
    await Promise.all(answers);
    expect(written).toEqual([1, 2, 3]);
  });

  it('an onWritten that throws ends its request, unsent, with a UsageError naming it (not a network error)', async () => {
    let requests = 0;
    const c = await clientFor((_req, res) => {
      requests++;
      json(res, 201, { sku: 'A-1', status: 'ready', title: 'T', item_specifics: [] });
    });
    const error: unknown = await c
      .postListingJson('{}', {
        onWritten: () => {
          throw new Error('callback broke');
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).setting?.key).toBe('onWritten');
    expect((error as Error).message).toMatch(/onWritten threw, so the request was not sent: callback broke/);
    expect(requests).toBe(0);
  });
});
