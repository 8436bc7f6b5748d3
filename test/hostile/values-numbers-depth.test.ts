import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startScriptedService, type ScriptedService } from '../helpers/fake-services.js';
import { committedOffsets, hasKcat, NO_KCAT, produce, startKafkaMock } from '../helpers/kafka-mock.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { contentHash } from '../../src/publish/idempotency.js';
import { MAX_JSON_DEPTH } from '../../src/json-text.js';

/*
 * Hostile values (issue 21, items 1 and 11): numbers a JS number would change, and values nested deeper than the
 * call stack. A number reaches the service exactly as the catalog writes it; JSON nested deeper than MAX_JSON_DEPTH
 * is refused where it enters, as a located row error (or a typed error for a service answer), never a crash.
 */

const KEY = 'sandbox-key';
const LISTING = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'F-1', '--payment-policy-id', 'P-1', '--return-policy-id', 'R-1'];
const TOO_DEEP = `nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** The catalog's records as JSON text (written by hand: JSON.stringify would change the numbers) and what must reach the service. */
const ROWS: ReadonlyArray<{ sku: string; record: string; sent?: string[] }> = [
  {
    sku: '9007199254740993',
    record: '{"sku":9007199254740993,"overrides":{"price":9007199254740993,"quantity":9007199254740993}}',
    sent: ['"sku":"9007199254740993"', '"overrides":{"price":9007199254740993,"quantity":9007199254740993}'],
  },
  { sku: 'HUGE', record: '{"sku":"HUGE","overrides":{"quantity":1e400,"price":-0}}', sent: ['"overrides":{"quantity":1e400,"price":-0}'] },
  { sku: 'FORMS', record: '{"sku":"FORMS","overrides":{"price":1.0,"quantity":1E2}}', sent: ['"overrides":{"price":1.0,"quantity":1E2}'] },
  { sku: 'LONG', record: '{"sku":"LONG","overrides":{"price":0.1000000000000000055511151231257827}}', sent: ['"overrides":{"price":0.1000000000000000055511151231257827}'] },
  { sku: 'DEEP-5000', record: `{"sku":"DEEP-5000","overrides":{"deep":${nested(5_000)}}}` },
  { sku: 'DEEP-100000', record: `{"sku":"DEEP-100000","overrides":{"deep":${nested(100_000)}}}` },
  { sku: 'PLAIN', record: '{"sku":"PLAIN","overrides":{"price":12.5,"quantity":3}}', sent: ['"overrides":{"price":12.5,"quantity":3}'] },
];
const SENT = ROWS.filter((row) => row.sent !== undefined);

/** The same records as each catalog format writes them, and how a row's place is written. */
const FORMATS = [
  { name: 'c.ndjson', text: `${ROWS.map((row) => row.record).join('\n')}\n`, at: (row: number) => `c.ndjson:${row}` },
  { name: 'c.json', text: `[\n${ROWS.map((row) => row.record).join(',\n')}\n]\n`, at: (row: number) => `c.json#${row}` },
] as const;

let sandbox: SandboxProcess;
/** In front of the sandbox: keeps each request's raw body (the sandbox's own JSON.parse would round it), then forwards it. */
let recorder: ScriptedService;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--api-key', KEY]);
  recorder = await startScriptedService((request, response) => {
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'idempotency-key']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    fetch(`${sandbox.url}${request.url}`, { method: request.method, headers, body: request.body })
      .then(async (answer) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()))
      .catch((error: Error) => response.writeHead(502).end(error.message));
  });
});
afterAll(async () => {
  await sandbox.stop();
});

/** The bodies the recorder received since `from`, by SKU (found in the body's text). */
function bodiesSince(from: number): Map<string, { body: string; key: string }> {
  const bodies = new Map<string, { body: string; key: string }>();
  for (const request of recorder.requests.slice(from)) {
    const sku = /"sku":"([^"]*)"/.exec(request.body)?.[1] ?? '?';
    bodies.set(sku, { body: request.body, key: String(request.headers['idempotency-key']) });
  }
  return bodies;
}

/** Each deep row is told once, at its place, for its depth; nothing crashed. */
function expectRowErrors(output: string, at: (row: number) => string): void {
  for (const row of [5, 6]) expect(output.split(`${at(row)}: `).length - 1, output).toBe(1);
  expect(output).toContain(TOO_DEEP);
  expect(output).not.toMatch(/RangeError|Maximum call stack|\n\s+at |please report/);
}

describe.each(FORMATS)('a $name catalog of hostile numbers and nesting', ({ name, text, at }) => {
  it('validate --out: the deep rows are located row errors, the run goes on, and the requests written keep every number as written', async () => {
    const dir = tempDir('values-validate-');
    writeFileSync(join(dir, name), text);
    const r = await runCli(['validate', name, '--out', 'requests.ndjson', ...LISTING], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expectRowErrors(r.stdout + r.stderr, at);
    expect(r.stderr).toMatch(/7 rows: 5 valid, 2 invalid/);
    const written = readFileSync(join(dir, 'requests.ndjson'), 'utf8').trim().split('\n');
    expect(written).toHaveLength(SENT.length);
    SENT.forEach((row, i) => {
      for (const part of row.sent ?? []) expect(written[i]).toContain(part);
    });
  });

  it('publish: the service receives every number exactly as written; the key, the journal, the state and the report record that same text', async () => {
    const dir = tempDir('values-publish-');
    writeFileSync(join(dir, name), text);
    const from = recorder.requests.length;
    const args = ['publish', name, ...LISTING, '--journal', 'journal.ndjson', '--changed-only', '--state', 'state.ndjson', '--report', 'report.json'];
    const r = await runCli(args, { cwd: dir, env: { LISTINGS_BASE_URL: recorder.url, LISTINGS_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(1);
    expectRowErrors(r.stdout + r.stderr, at);
    const bodies = bodiesSince(from);
    expect([...bodies.keys()].sort()).toEqual(SENT.map((row) => row.sku).sort());
    const journal = readFileSync(join(dir, 'journal.ndjson'), 'utf8');
    const state = readFileSync(join(dir, 'state.ndjson'), 'utf8');
    for (const row of SENT) {
      const { body, key } = bodies.get(row.sku)!;
      for (const part of row.sent ?? []) expect(body).toContain(part);
      // The Idempotency-Key and the content hash are of the text sent.
      expect(key).toBe(`lst-${contentHash(body)}`);
      expect(journal).toContain(`"sku":"${row.sku}","marketplace":"EBAY_US","hash":"${contentHash(body)}","outcome":"published"`);
      expect(state).toContain(`["EBAY_US","${row.sku}","${contentHash(body)}"]`);
    }
    // Each row once; a row too deep to be read has no SKU, only its place.
    type ReportRow = { line?: number; record?: number; sku: string | null; outcome: string; error: string | null };
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { rows: ReportRow[] };
    expect(report.rows.map((row) => [row.line ?? row.record, row.sku, row.outcome])).toEqual(
      ROWS.map((row, i) => [i + 1, row.sent === undefined ? null : row.sku, row.sent === undefined ? 'invalid' : 'published']),
    );
    for (const row of report.rows.filter((row) => row.outcome === 'invalid')) expect(row.error).toContain(TOO_DEEP);
  });
});

describe('a key written twice in one object', () => {
  // Before: JSON.parse (and the JSON array reader) kept the last value: price 1 was dropped and the row was valid.
  const records = ['{"sku":"TWICE","overrides":{"price":1,"price":2}}', '{"sku":"NESTED","overrides":{"a":[{"x":1.0,"x":2}]}}', '{"sku":"ONCE","overrides":{"a":[{"x":1},{"x":2}]}}'];
  it.each([
    ['c.ndjson', `${records.join('\n')}\n`, (row: number) => `c.ndjson:${row}: the line`],
    ['c.json', `[${records.join(',\n')}]`, (row: number) => `c.json#${row}: record ${row}`],
  ])('%s: that row is invalid at its place, naming the key; the rest is valid', async (name, text, at) => {
    const dir = tempDir('values-twice-');
    writeFileSync(join(dir, name), text);
    const r = await runCli(['validate', name, ...LISTING], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toContain(`${at(1)} holds the key "price" twice in one object, so one of its values would be lost`);
    expect(r.stdout + r.stderr).toContain(`${at(2)} holds the key "x" twice`);
    expect(r.stderr).toMatch(/3 rows: 1 valid, 2 invalid/);
  });
});

describe('a field written both as a dotted key and inside a nested object', () => {
  // Before: one of the two values was sent and the other dropped in silence, the row valid.
  const records = [
    '{"sku":"FIRST","overrides.colour":"red","overrides":{"colour":"blue"}}',
    '{"sku":"OBJECT","overrides":{"a":{"b":1}},"overrides.a":"2"}',
    '{"sku":"MAPPED","Price":"1","overrides":{"price":"2"}}',
    '{"sku":"ONCE","Price":"3","overrides":{"colour":"red"}}',
  ];
  it.each([
    ['c.ndjson', `${records.join('\n')}\n`, (row: number) => `c.ndjson:${row}`],
    ['c.json', `[${records.join(',\n')}]`, (row: number) => `c.json#${row}`],
  ])('%s: that row is invalid at its place, naming the field and both places; the rest is sent as written', async (name, text, at) => {
    const dir = tempDir('values-dotted-nested-');
    writeFileSync(join(dir, name), text);
    const r = await runCli(['validate', name, ...LISTING, '--map', 'overrides.price=Price', '--out', 'requests.ndjson'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const twice = (first: string, second: string) => `given twice, as ${first} and as ${second}, so one of its values would be lost`;
    expect(r.stdout).toContain(`${at(1)}: [EBAY_US] overrides.colour: ${twice('the key "overrides.colour"', '"colour" inside "overrides"')}`);
    expect(r.stdout).toContain(`${at(2)}: [EBAY_US] overrides.a: ${twice('the key "overrides.a"', '"a" inside "overrides"')}`);
    expect(r.stdout).toContain(`${at(3)}: [EBAY_US] overrides.price: ${twice('the key "Price"', '"price" inside "overrides"')}`);
    expect(r.stderr).toMatch(/4 rows: 1 valid, 3 invalid/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
    const written = readFileSync(join(dir, 'requests.ndjson'), 'utf8').trim().split('\n');
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('"sku":"ONCE"');
    expect(written[0]).toContain('"overrides":{"colour":"red","price":"3"}');
  });
});

describe('a CSV catalog', () => {
  it('sends its cells as the text they are: a quantity "007" or "1e400" is never made a number', async () => {
    const dir = tempDir('values-csv-');
    writeFileSync(join(dir, 'c.csv'), 'sku,overrides.quantity,overrides.price\n9007199254740993,007,1e400\n');
    const from = recorder.requests.length;
    const r = await runCli(['publish', 'c.csv', ...LISTING, '--no-journal'], { cwd: dir, env: { LISTINGS_BASE_URL: recorder.url, LISTINGS_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    expect(bodiesSince(from).get('9007199254740993')?.body).toContain('"overrides":{"quantity":"007","price":"1e400"}');
  });
});

describe('create --json against a service whose answer nests 20,000 deep', () => {
  async function answering(status: number, body: string) {
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  it.each([
    { status: 201, body: `{"sku":"S-1","status":"ready","title":"t","item_specifics":[],"extra":${nested(20_000)}}`, code: 3 },
    { status: 400, body: `{"error":{"message":"refused","detail":${nested(20_000)}}}`, code: 1 },
  ])('HTTP $status: a clear error and exit $code, not a stack trace and exit 70', async ({ status, body, code }) => {
    const service = await answering(status, body);
    try {
      const r = await runCli(['create', 'S-1', '--json', '--base-url', service.url, ...LISTING], { env: { LISTINGS_API_KEY: KEY } });
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).not.toMatch(/RangeError|Maximum call stack|\n\s+at |please report/);
      if (status === 201) expect(r.stderr).toContain(`HTTP 201: the answer ${TOO_DEEP} (20001), so it is not read as a listing`);
      else expect(r.stderr).toMatch(/rejected S-1: HTTP 400 Bad Request: \{"error"/);
      expect(r.stdout.length + r.stderr.length).toBeLessThan(5_000);
    } finally {
      await service.close();
    }
  });
});

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

describe.skipIf(!kcat)('a Kafka stream of hostile numbers and nesting', () => {
  it('publishes the numbers as written (a numeric sku matches its key) and dead-letters the message nested too deep, with the reason', async () => {
    const mock = await startKafkaMock(1);
    const dir = tempDir('values-stream-');
    const topic = 'values';
    const messages = [
      { key: '9007199254740993', value: '{"sku":9007199254740993,"overrides":{"price":1.0,"quantity":1e400}}' },
      { key: 'K-DEEP', value: `{"sku":"K-DEEP","overrides":{"deep":${nested(5_000)}}}` },
      { key: 'K-PLAIN', value: '{"sku":"K-PLAIN","overrides":{"price":12.5}}' },
    ];
    const from = recorder.requests.length;
    const child = spawnCli(['stream', `kafka://${mock.bootstrap}/${topic}`, '--group', 'values', ...LISTING, '--dead-letter', 'dead.ndjson', '--session-timeout', '6000'], {
      cwd: dir,
      env: { LISTINGS_BASE_URL: recorder.url, LISTINGS_API_KEY: KEY },
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await produce(mock.bootstrap, topic, messages);
      const deadline = Date.now() + 40_000;
      const committed = async () => [...(await committedOffsets(mock.bootstrap, 'values', topic)).values()].reduce((sum, offset) => sum + Math.max(0, offset), 0);
      while ((await committed()) < messages.length) {
        if (Date.now() > deadline) throw new Error(`offsets not committed: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
      const bodies = bodiesSince(from);
      expect([...bodies.keys()].sort()).toEqual(['9007199254740993', 'K-PLAIN']);
      expect(bodies.get('9007199254740993')?.body).toContain('"sku":"9007199254740993"');
      expect(bodies.get('9007199254740993')?.body).toContain('"overrides":{"price":1.0,"quantity":1e400}');
      const letters = readFileSync(join(dir, 'dead.ndjson'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { key: string; reason: string });
      expect(letters.map((letter) => letter.key)).toEqual(['K-DEEP']);
      expect(letters[0]?.reason).toContain(TOO_DEEP);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await mock.stop();
    }
  }, 90_000);
});
