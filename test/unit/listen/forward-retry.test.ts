import { afterEach, describe, expect, it } from 'vitest';
import { Forwarder } from '../../../src/listen/forward.js';
import { startKeepAliveApp, type AppMove, type KeepAliveApp } from '../../helpers/keep-alive-app.js';

const apps: KeepAliveApp[] = [];
const forwarders: Forwarder[] = [];

afterEach(async () => {
  for (const forwarder of forwarders.splice(0)) forwarder.close();
  for (const app of apps.splice(0)) await app.close();
});

const request = (id: string): { method: string; headers: Record<string, string>; body: Buffer } => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from(`{"id":"${id}"}`) });

/** An app whose first connection answers its first request and does `second` with the next; later ones answer. */
async function setUp(second: AppMove, timeoutMs = 2_000): Promise<{ app: KeepAliveApp; forwarder: Forwarder }> {
  let connections = 0;
  const app = await startKeepAliveApp((onConnection) => {
    if (onConnection === 0) connections++;
    return connections === 1 && onConnection === 1 ? second : 'answer';
  });
  const forwarder = new Forwarder(app.url, timeoutMs);
  apps.push(app);
  forwarders.push(forwarder);
  expect(await forwarder.send(request('e1'))).toMatchObject({ ok: true, status: 204 });
  return { app, forwarder };
}

describe('Forwarder: a kept-alive connection the app closed', () => {
  it('sends a request again, once, on a new connection when the app closed the kept-alive one before any byte of answer', async () => {
    const { app, forwarder } = await setUp('close');
    expect(await forwarder.send(request('e2'))).toMatchObject({ ok: true, status: 204 });
    expect(app.received).toEqual([
      { connection: 0, body: '{"id":"e1"}' },
      { connection: 0, body: '{"id":"e2"}' },
      { connection: 1, body: '{"id":"e2"}' },
    ]);
  });

  it('does not send it again when part of an answer came back: the app may have acted on it', async () => {
    const { app, forwarder } = await setUp('partial');
    const result = await forwarder.send(request('e2'));
    expect(result.ok).toBe(false);
    expect(app.received.map((seen) => seen.body)).toEqual(['{"id":"e1"}', '{"id":"e2"}']);
  });

  it('does not send it again after a timeout', async () => {
    const { app, forwarder } = await setUp('silent', 300);
    expect(await forwarder.send(request('e2'))).toMatchObject({ ok: false, error: 'no whole answer within 300 ms' });
    expect(app.received.map((seen) => seen.body)).toEqual(['{"id":"e1"}', '{"id":"e2"}']);
  });

  it('does not send it again when a new connection is closed unanswered: no kept-alive race there', async () => {
    const app = await startKeepAliveApp(() => 'close');
    apps.push(app);
    const forwarder = new Forwarder(app.url, 2_000);
    forwarders.push(forwarder);
    expect(await forwarder.send(request('e1'))).toMatchObject({ ok: false, error: 'ECONNRESET' });
    expect(app.received).toEqual([{ connection: 0, body: '{"id":"e1"}' }]);
  });

  it('sends it again only once: a second close unanswered is a failure', async () => {
    const app = await startKeepAliveApp((onConnection) => (onConnection === 0 && app.received.length === 1 ? 'answer' : 'close'));
    apps.push(app);
    const forwarder = new Forwarder(app.url, 2_000);
    forwarders.push(forwarder);
    expect(await forwarder.send(request('e1'))).toMatchObject({ ok: true });
    expect(await forwarder.send(request('e2'))).toMatchObject({ ok: false, error: 'ECONNRESET' });
    expect(app.received.map((seen) => [seen.connection, seen.body])).toEqual([
      [0, '{"id":"e1"}'],
      [0, '{"id":"e2"}'],
      [1, '{"id":"e2"}'],
    ]);
  });
});
