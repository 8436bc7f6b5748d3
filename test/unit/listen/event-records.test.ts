import { describe, expect, it } from 'vitest';
import { summarize } from '../../../src/listen/callback.js';
import { callbackRecord, eventRecords } from '../../../src/listen/event-records.js';
import type { CallbackEvent } from '../../../src/listen/types.js';

function callback(seq: number, body: string | Buffer, forwarding = false): CallbackEvent {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const received = { receivedAt: new Date('2024-05-01T10:00:00.000Z'), method: 'POST', path: '/hook?token=s3cret', headers: {}, body: bytes };
  return { type: 'callback', seq, callback: received, summary: summarize(received), outcome: 'accepted', status: 200, forwarding };
}

describe("listen's events as JSON records", () => {
  it('a callback: its body as JSON, else text, else base64; the path redacted', () => {
    const json = callbackRecord(callback(1, '{"id":"e1","type":"listing.created","sku":"A-1"}'));
    expect(json).toMatchObject({ seq: 1, received_at: '2024-05-01T10:00:00.000Z', outcome: 'accepted', http_status: 200, method: 'POST', body: { id: 'e1', sku: 'A-1' } });
    expect(String(json.path)).not.toContain('s3cret');
    expect(callbackRecord(callback(2, 'plain words'))).toMatchObject({ text: 'plain words' });
    expect(callbackRecord(callback(3, Buffer.from([0xff, 0xfe, 0x00])))).toMatchObject({ body_base64: '//4A' });
  });

  it("a forwarded callback's record waits for its forward and carries it; the others come at once", () => {
    const records = eventRecords();
    expect(records(callback(1, '{}', true))).toEqual([]);
    expect(records(callback(2, '{}'))).toMatchObject([{ seq: 2 }]);
    expect(records({ type: 'forward', seq: 1, result: { ok: true, status: 204, ms: 3 } })).toMatchObject([{ seq: 1, forward: { ok: true, status: 204, ms: 3 } }]);
    expect(records({ type: 'forward', seq: 1, result: { ok: false, error: 'refused', ms: 1 } })).toEqual([]);
    expect(records({ type: 'record_error', message: 'disk full' })).toEqual([]);
  });
});
