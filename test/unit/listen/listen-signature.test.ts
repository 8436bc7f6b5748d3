import { describe, expect, it } from 'vitest';
import { flagsOf, parseValue } from '../../../src/options/index.js';
import { summarize } from '../../../src/listen/callback.js';
import { eventKeys, RecentIds } from '../../../src/listen/dedupe.js';
import { LISTEN_DEFAULTS, listenOptionIssues } from '../../../src/listen/options.js';
import { sandboxOptionIssues } from '../../../src/sandbox/options.js';
import { parseSignatureHeader, signatureOf, signPayload, verifySignature } from '../../../src/listen/signature.js';

const SECRET = 'whsec_unit_test_secret';
const BODY = Buffer.from('{"id":"evt_1","type":"listing.created","data":{"sku":"A-1","status":"ready"}}');
const NOW = 1_750_000_000;

describe('webhook signature', () => {
  it('verifies a valid signature, with its timestamp', () => {
    const header = signPayload(SECRET, BODY, NOW);
    expect(header).toMatch(/^t=1750000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(header, BODY, SECRET, { now: NOW + 10 })).toEqual({ ok: true, timestamp: NOW });
    // The same HMAC whether the body is given as bytes or as text.
    expect(signatureOf(SECRET, NOW, BODY)).toBe(signatureOf(SECRET, NOW, BODY.toString('utf8')));
  });

  it('refuses a tampered body, a tampered signature, and another secret', () => {
    const header = signPayload(SECRET, BODY, NOW);
    const tampered = Buffer.from(BODY.toString('utf8').replace('A-1', 'A-2'));
    expect(verifySignature(header, tampered, SECRET, { now: NOW })).toEqual({ ok: false, reason: 'mismatch' });
    const flipped = header.replace(/v1=(.)/, (_match, first: string) => `v1=${first === '0' ? '1' : '0'}`);
    expect(verifySignature(flipped, BODY, SECRET, { now: NOW })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature(header, BODY, 'whsec_another_secret', { now: NOW })).toEqual({ ok: false, reason: 'mismatch' });
    // A signature of another timestamp does not pass with the header's timestamp changed.
    expect(verifySignature(header.replace(`t=${NOW}`, `t=${NOW + 1}`), BODY, SECRET, { now: NOW })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses a timestamp outside the tolerance, either way', () => {
    const header = signPayload(SECRET, BODY, NOW);
    expect(verifySignature(header, BODY, SECRET, { now: NOW + 300 }).ok).toBe(true);
    expect(verifySignature(header, BODY, SECRET, { now: NOW + 301 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifySignature(header, BODY, SECRET, { now: NOW - 301 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifySignature(header, BODY, SECRET, { now: NOW + 3_600, toleranceSeconds: 7_200 }).ok).toBe(true);
  });

  it('refuses a missing or malformed header, and accepts one matching v1 among several (a secret being rotated)', () => {
    expect(verifySignature(undefined, BODY, SECRET)).toEqual({ ok: false, reason: 'missing' });
    expect(verifySignature(' ', BODY, SECRET)).toEqual({ ok: false, reason: 'missing' });
    // Two timestamps: the last one won, so a header could name one the body was never signed with beside one it was.
    const twice = `t=${NOW - 100_000},${signPayload(SECRET, BODY, NOW)}`;
    for (const header of ['v1=abc', `t=${NOW}`, `t=x,v1=${'0'.repeat(64)}`, `t=${NOW},v1=${'0'.repeat(63)}`, 'sha256=abc', twice, `${signPayload(SECRET, BODY, NOW)},t=${NOW}`]) {
      expect(verifySignature(header, BODY, SECRET, { now: NOW }), header).toEqual({ ok: false, reason: 'malformed' });
    }
    const rotated = `t=${NOW},v1=${signatureOf('whsec_old_secret', NOW, BODY)},v1=${signatureOf(SECRET, NOW, BODY)}`;
    expect(verifySignature(rotated, BODY, SECRET, { now: NOW }).ok).toBe(true);
    expect(parseSignatureHeader(rotated)?.signatures).toHaveLength(2);
  });
});

describe('listen helpers', () => {
  it('remembers a bounded number of ids', () => {
    const ids = new RecentIds(3);
    expect(['a', 'b', 'c', 'a'].map((id) => ids.seen(id))).toEqual([false, false, false, true]);
    expect(ids.seen('d')).toBe(false);
    expect(ids.size).toBe(3);
    // `a`, the oldest, was forgotten to make room for `d`.
    expect(ids.seen('a')).toBe(false);
  });

  it('an event seen under one of its keys is a duplicate, and its other keys are not remembered from it', () => {
    const ids = new RecentIds(10);
    expect(ids.seenAny(['signed:1', 'id:a'])).toBe(false);
    expect(ids.seenAny(['signed:1', 'id:b'])).toBe(true);
    expect(ids.seenAny(['signed:2', 'id:b'])).toBe(false);
    expect(ids.seenAny(['signed:3', 'id:a'])).toBe(true);
    expect(ids.size).toBe(4);
  });

  it('keys an event by digests of a bounded length, whatever the length of its id (10,000 ids of 1 MB each are not kept)', () => {
    const body = Buffer.from('{}');
    const long = 'x'.repeat(1_000_000);
    const keys = eventKeys(long, body, 1_700_000_000);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key.length).toBeLessThan(80);
    expect(eventKeys(long, body, undefined)).toEqual([keys[1]]);
    expect(eventKeys(`${long}y`, body, undefined)).not.toEqual([keys[1]]);
    // Two ids that differ only by a lone surrogate are two events (UTF-8 would make both U+FFFD).
    expect(eventKeys('evt_\ud800', body, undefined)).not.toEqual(eventKeys('evt_\udc00', body, undefined));
    expect(eventKeys(undefined, body, undefined)).toEqual([]);
  });

  it('reads the id, kind, SKU and status where a body or the headers carry them', () => {
    const json = (value: unknown, headers = {}) => summarize({ headers, body: Buffer.from(JSON.stringify(value)) });
    expect(json({ id: 'evt_1', type: 'listing.created', data: { sku: 'A-1', status: 'ready' } })).toMatchObject({ id: 'evt_1', kind: 'listing.created', sku: 'A-1', status: 'ready' });
    expect(json({ event_id: 7, event: 'job.done', payload: { sku: 'B' } })).toMatchObject({ id: '7', kind: 'job.done', sku: 'B' });
    expect(json({ sku: 'C' }, { 'webhook-id': 'wh_1' })).toMatchObject({ id: 'wh_1', sku: 'C' });
    expect(json([1, 2], { 'idempotency-key': 'k-1' })).toMatchObject({ id: 'k-1', json: [1, 2] });
    const text = summarize({ headers: {}, body: Buffer.from('plain text') });
    expect(text).toEqual({ text: 'plain text' });
    expect(summarize({ headers: {}, body: Buffer.from([0xff, 0xfe, 0x00]) })).toEqual({});
  });

  it('refuses a --path no request target can spell: it would answer every callback 404', () => {
    for (const path of ['/hooks', '/', '/a/b-c_d.e~f', '/caf%C3%A9', "/x!$&'()*+,;=:@"]) expect(listenOptionIssues({ path }), path).toEqual([]);
    const message = (path: string): string => listenOptionIssues({ path }).map((issue) => `${issue.path} ${issue.message}`).join();
    expect(message('/café')).toMatch(/^path must be a URL path as requests spell it .*: write it as a request spells it, \/caf%C3%A9$/);
    expect(message('/a\u001b[31m')).toContain('/a%1B%5B31m');
    expect(message('/100%')).toMatch(/^path must be a URL path/);
    expect(message('/a b')).toContain('/a%20b');
    expect(message('/a?b')).toBe('path must start with / and hold no ? or #');
  });

  it('checks its options, and the help shows the defaults the listener applies', () => {
    expect(listenOptionIssues({ port: 70_000, path: 'hooks', forwardTo: 'ftp://x', signatureHeader: 'bad header', toleranceSeconds: 0 }).map((issue) => issue.path)).toEqual([
      'port',
      'path',
      'forwardTo',
      'signatureHeader',
      'toleranceSeconds',
    ]);
    // The defaults the flag table shows in help, read as the flags would be: the listener's own.
    const shown = Object.fromEntries(flagsOf('listen').flatMap((flag) => (flag.default === undefined || flag.value === undefined ? [] : [[flag.name, parseValue(flag.value, String(flag.default))]])));
    expect(shown).toEqual({
      port: LISTEN_DEFAULTS.port,
      host: LISTEN_DEFAULTS.host,
      path: LISTEN_DEFAULTS.path,
      'signature-header': LISTEN_DEFAULTS.signatureHeader,
      tolerance: LISTEN_DEFAULTS.toleranceSeconds,
      'max-body': LISTEN_DEFAULTS.maxBodyBytes,
      'max-connections': LISTEN_DEFAULTS.maxConnections,
      'request-timeout': LISTEN_DEFAULTS.requestTimeoutSeconds,
    });
  });
});

describe('sandbox webhook options', () => {
  it('names each bad webhook option', () => {
    expect(sandboxOptionIssues({ webhookUrl: 'http://127.0.0.1:8787/', webhookSecret: 's3cret', webhookAttempts: 3, webhookBackoffMs: 0 })).toEqual([]);
    expect(sandboxOptionIssues({ webhookUrl: 'mailto:x@example.com', webhookAttempts: 0, webhookBackoffMs: -1 }).map((issue) => issue.path)).toEqual(['webhookUrl', 'webhookAttempts', 'webhookBackoffMs']);
    expect(sandboxOptionIssues({ webhookSecret: 's3cret' })).toEqual([{ path: 'webhookSecret', message: 'applies only with a webhook URL' }]);
  });
});
