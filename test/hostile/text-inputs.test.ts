/**
 * Hostile text in catalogs (issue 21, items 2-5): line ends of every system, control characters in identifiers,
 * UTF-16 without a byte order mark, and sources that stop part-way. Each case is run through the built binary
 * (validate, publish against the sandbox, create) and says what must come out.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv } from '../helpers/publish.js';

const HEADER = 'sku,title,marketplace,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id';
const SETTINGS = ['--condition', 'NEW'];
const row = (sku: string, title = 'T', marketplace = 'EBAY_US', location = 'loc-1', policy = 'f-1'): string => `${sku},${title},${marketplace},${location},${policy},p-1,r-1`;

function write(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

interface ValidateJson {
  rows: number;
  valid: number;
  invalid: number;
  errors: { line: number; field: string; message: string }[];
  complete: boolean;
  unread?: { reason: string; bytes: number | null; rows_estimate: number | null };
}

async function validate(path: string, extra: string[] = [], input?: string): Promise<{ code: number | null; json: ValidateJson; stderr: string }> {
  const result = await runCli(['validate', path, '--json', ...SETTINGS, ...extra], input === undefined ? {} : { input });
  return { code: result.code, json: JSON.parse(result.stdout.split('\n')[0]!) as ValidateJson, stderr: result.stderr };
}

describe('line ends: a bare CR, LF and CRLF each end a row, whatever the first line has', () => {
  const cases: [string, string, number][] = [
    // "the row has 11 fields but the header has 6": the rows on either side of a CR were merged.
    ['CRLF with one row ended by a bare CR', `${HEADER}\r\n${row('A-1')}\r\n${row('A-2')}\r${row('A-3')}\r\n`, 3],
    ['CR only (an old Mac export)', `${HEADER}\r${row('A-1')}\r${row('A-2')}\r`, 2],
    ['LF first, then CR', `${HEADER}\n${row('A-1')}\r${row('A-2')}\n`, 2],
    ['a CR inside a quoted title stays data', `${HEADER}\r\n${row('A-1', '"two\rlines"')}\r\n${row('A-2')}\r\n`, 2],
  ];
  it.each(cases)('%s: validate reads every row', async (_name, text, rows) => {
    const { code, json } = await validate(write(tempDir(), 'c.csv', text));
    expect(json).toMatchObject({ rows, valid: rows, invalid: 0, complete: true });
    expect(code).toBe(0);
  });

  it('a one-column CSV with a bare CR publishes A-2 and A-3 as two listings (it published "A-2\\rA-3" as one)', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const path = write(dir, 'skus.csv', 'sku\r\nA-1\r\nA-2\rA-3\r\n');
    const flags = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'l', '--fulfillment-policy-id', 'f', '--payment-policy-id', 'p', '--return-policy-id', 'r', ...SETTINGS];
    const result = await runCli(['publish', path, '--json', '--report', join(dir, 'r.csv'), ...flags], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    expect((await sandbox.stats()).created).toBe(3);
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toMatch(/,3,A-2,published,[^\n]*\n[^\n]*,4,A-3,published,/);
  });
});

describe('control characters in identifiers are refused with a located error, in every command', () => {
  const cases: [string, string, string][] = [
    ['NUL in a sku', row('AB\u0000CD'), 'sku: holds a control character (U+0000) at character 3'],
    ['SOH in a sku', row('A\u0001B'), 'sku: holds a control character (U+0001) at character 2'],
    ['DEL in a location key', row('A-1', 'T', 'EBAY_US', 'loc\u007f'), 'merchant_location_key: holds a control character (U+007F) at character 4'],
    ['a C1 control in a policy id', row('A-1', 'T', 'EBAY_US', 'loc-1', 'f\u0085'), 'fulfillment_policy_id: holds a control character (U+0085) at character 2'],
    ['a line separator in a sku', row('A\u2028B'), 'sku: holds a line or paragraph separator (U+2028) at character 2'],
    ['a bidi override in a sku', row('\u202eA-1'), 'sku: holds a direction control (U+202E) at character 1'],
    ['ESC in a marketplace', row('A-1', 'T', 'EBAY_US\u001b'), 'marketplace: holds a control character (U+001B) at character 8'],
  ];

  it.each(cases)('%s: validate says where, exit 1', async (_name, bad, message) => {
    const { code, json, stderr } = await validate(write(tempDir(), 'c.csv', `${HEADER}\n${row('OK-1')}\n${bad}\n`));
    expect(code).toBe(1);
    expect(json).toMatchObject({ rows: 2, valid: 1, invalid: 1 });
    expect(json.errors).toHaveLength(1);
    expect(json.errors[0]!.line).toBe(3);
    expect(`${json.errors[0]!.field}: ${json.errors[0]!.message}`).toContain(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('publish sends none of them: the sandbox creates only the clean row', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const path = write(dir, 'c.csv', [HEADER, row('OK-1'), ...cases.map(([, bad]) => bad)].join('\n') + '\n');
    const result = await runCli(['publish', path, '--json', ...SETTINGS], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: cases.length + 1, published: 1, invalid: cases.length });
    const stats = await sandbox.stats();
    expect(stats).toMatchObject({ requests: 1, created: 1 });
  });

  it('the sandbox, which judges with the same schemas, refuses them too (a client that skips validation)', async () => {
    const sandbox = await startSandboxProcess();
    const body = { sku: 'AB\u0000CD', marketplace: 'EBAY_US', merchant_location_key: 'l', fulfillment_policy_id: 'f', payment_policy_id: 'p', return_policy_id: 'r' };
    const answer = await fetch(`${sandbox.url}/v1/listings`, { method: 'POST', headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(await answer.text()).toContain('holds a control character (U+0000)');
    expect((await sandbox.stats()).created).toBe(0);
  });

  it("create 'AB\\x01CD' is refused before anything is sent", async () => {
    const sandbox = await startSandboxProcess();
    const result = await runCli(
      ['create', 'AB\u0001CD', '--marketplace', 'EBAY_US', '--merchant-location-key', 'l', '--fulfillment-policy-id', 'f', '--payment-policy-id', 'p', '--return-policy-id', 'r'],
      { env: publishEnv(sandbox.url) },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('sku: holds a control character (U+0001) at character 3');
    expect((await sandbox.stats()).requests).toBe(0);
  });
});

describe('UTF-16 is decoded, with a byte order mark or without (it read as columns "s\\u0000k\\u0000u\\u0000")', () => {
  const text = `${HEADER}\r\n${row('A-1', 'Tasse Ü 😎')}\r\n${row('A-2')}\r\n`;
  const le = (value: string): Buffer => Buffer.from(value, 'utf16le');
  const be = (value: string): Buffer => Buffer.from(value, 'utf16le').swap16();
  const cases: [string, Buffer][] = [
    ['LE without a mark', le(text)],
    ['BE without a mark', be(text)],
    ['LE with a mark', le(`\uFEFF${text}`)],
    ['BE with a mark', be(`\uFEFF${text}`)],
  ];
  it.each(cases)('%s: validate reads both rows', async (_name, bytes) => {
    const { code, json } = await validate(write(tempDir(), 'c.csv', bytes));
    expect(json).toMatchObject({ rows: 2, valid: 2, invalid: 0, complete: true });
    expect(code).toBe(0);
  });

  it('LE without a mark: publish sends both rows', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const path = write(dir, 'c.csv', le(text));
    const result = await runCli(['publish', path, '--json', ...SETTINGS], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    expect((await sandbox.stats()).created).toBe(2);
  });
});

describe('a source that stops says why and how much of it was not read, in the summary and every report', () => {
  /** A catalog whose row 2 opens a quote never closed, then `left` more rows. */
  function unclosed(left: number): string {
    const lines = [HEADER, row('A-1'), row('A-2', '"open')];
    for (let i = 0; i < left; i++) lines.push(row(`B-${i}`));
    return `${lines.join('\n')}\n`;
  }

  it.each([
    [9, 9],
    [250_000, 250_000],
  ])('an unclosed quote with %i rows after it: validate counts them', async (left, estimate) => {
    const { code, json, stderr } = await validate(write(tempDir(), 'c.csv', unclosed(left)));
    expect(code).toBe(4);
    expect(json).toMatchObject({ rows: 2, complete: false, unread: { reason: 'unclosed_quote', rows_estimate: estimate } });
    expect(json.unread!.bytes).toBeGreaterThan(left * 30);
    expect(stderr).toContain(`stopped: about ${estimate.toLocaleString('en-US')} rows`);
    expect(stderr).toMatch(/a quoted value \(column "title"\) opens on this line and is never closed|is not closed within 1 MiB/);
  }, 60_000);

  it('an unclosed quote in the last row: "no row after the one that stopped the reading", not "about 0 rows"', async () => {
    const { code, json, stderr } = await validate(write(tempDir(), 'c.csv', unclosed(0)));
    expect(code).toBe(4);
    expect(json).toMatchObject({ complete: false, unread: { reason: 'unclosed_quote', rows_estimate: 0 } });
    expect(stderr).toMatch(/stopped: no row after the one that stopped the reading \([\d,]+ bytes from it to the end\): a quoted value was never closed/);
  });

  it('an unquoted field over 1 MiB is an over-long row, not "an unclosed quote", and the 9 rows after it are counted', async () => {
    const lines = [HEADER, row('A-1'), row('A-2', 'x'.repeat(1_200_000))];
    for (let i = 0; i < 9; i++) lines.push(row(`B-${i}`));
    const { code, json, stderr } = await validate(write(tempDir(), 'c.csv', `${lines.join('\n')}\n`));
    expect(code).toBe(4);
    expect(json).toMatchObject({ rows: 2, complete: false, unread: { reason: 'row_too_large', rows_estimate: 9 } });
    expect(stderr).not.toContain('unclosed quote');
    expect(stderr).toContain('larger than 1 MiB without a quote open');
  });

  // Before: the name's line break went out raw in "stopped: ... past NAME" and in the error, and a name could forge a
  // line that looked like a success ("✔ all good.csv:2: ...").
  it('a catalog whose name holds a line break: the stop, the error and a missing file are each told on one line', async () => {
    const dir = tempDir();
    const name = 'cut\n\u2714 all good.csv';
    write(dir, name, `${HEADER}\n${row('A-1', '"open')}\n`);
    const [cut, missing] = await Promise.all([name, 'missing\n\u2714 file.csv'].map((source) => runCli(['publish', source, '--sandbox', ...SETTINGS], { cwd: dir })));
    expect(cut!.stderr).toMatch(/^stopped: the source could not be read past cut\\u000a\u2714 all good\.csv:2: /m);
    expect(cut!.stderr).toMatch(/^error cut\\u000a\u2714 all good\.csv:2: not read to its end/m);
    expect(missing!.stderr).toMatch(/^error missing\\u000a\u2714 file\.csv: no such file/m);
    for (const result of [cut!, missing!]) {
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr.split('\n').filter((line) => line.startsWith('\u2714'))).toEqual([]);
    }
  });

  it('from stdin, of unknown length: "the rest of the source (its size unknown)"', async () => {
    const { code, json, stderr } = await validate('-', ['--format', 'csv'], unclosed(9));
    expect(code).toBe(4);
    expect(json.unread).toEqual({ reason: 'unclosed_quote', bytes: null, rows_estimate: null });
    expect(stderr).toContain('the rest of the source (its size unknown) not read');
  });

  it('publish: exit 4 as before, and the terminal summary, --json and the csv, json, ndjson, junit and html reports all say it', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const path = write(dir, 'c.csv', unclosed(9));
    const reports = ['r.csv', 'r.json', 'r.ndjson', 'r.xml', 'r.html'].map((name) => join(dir, name));
    const result = await runCli(['publish', path, '--json', ...SETTINGS, ...reports.flatMap((report) => ['--report', report])], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(4);
    expect((await sandbox.stats()).created).toBe(1);
    const unread = { reason: 'unclosed_quote', bytes: expect.any(Number) as number, rows_estimate: 9 };
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 2, complete: false, total: 11, unread });
    expect(result.stderr).toContain('about 9 rows');
    const said = /about 9 rows \([\d,]+ bytes\) not read: a quoted value was never closed/;
    const [csv, json, ndjson, xml, html] = reports.map((report) => readFileSync(report, 'utf8'));
    expect(csv).toMatch(said);
    expect((JSON.parse(json!) as { summary: unknown }).summary).toMatchObject({ unread });
    expect((JSON.parse(ndjson!.trim().split('\n').at(-1)!) as { summary: unknown }).summary).toMatchObject({ unread });
    expect(xml).toMatch(said);
    expect(html).toMatch(said);
  });
});

describe('a huge value (a 300,000-character SKU, a 600,000-character marketplace) keeps every line of output short', () => {
  // Before: validate printed `[<the marketplace>] marketplace: ... e.g. <the marketplace in upper case>_US`, a line
  // of 1.2 MB, and publish printed the SKU whole in its error line; a CI log or a terminal took every byte.
  const MAX_LINE = 2_000;
  const longest = (text: string): number => Math.max(...text.split('\n').map((line) => line.length));
  const catalog = (dir: string): string => write(dir, 'c.csv', `${HEADER}\n${row('A-1', 'T', `e${'x'.repeat(600_000)}`)}\n${row('y'.repeat(300_000), 'T', 'ebay')}\n`);

  it('validate, text and under GitHub Actions: exit 1, no line past 2,000 characters', async () => {
    const dir = tempDir();
    const result = await runCli(['validate', catalog(dir), ...SETTINGS], { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') } });
    expect(result.code, result.stderr.slice(0, 500)).toBe(1);
    expect(result.stdout).toMatch(/c\.csv:2: \[exxx+…\] marketplace: "exxx+\.\.\." is the wrapped shape's form/);
    for (const text of [result.stdout, result.stderr, readFileSync(join(dir, 'summary.md'), 'utf8')]) expect(longest(text)).toBeLessThan(MAX_LINE);
  });

  it('validate --json: the message does not repeat the value whole', async () => {
    const { code, json } = await validate(catalog(tempDir()));
    expect(code).toBe(1);
    for (const error of json.errors) expect(error.message.length).toBeLessThan(MAX_LINE);
  });

  it('publish: exit 1, no line of the terminal past 2,000 characters', async () => {
    const dir = tempDir();
    const result = await runCli(['publish', catalog(dir), '--sandbox', '--no-journal', ...SETTINGS], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(result.code, result.stderr.slice(0, 500)).toBe(1);
    expect(result.stderr).toMatch(/c\.csv:3: sku yyy+…: invalid: marketplace: "ebay"/);
    expect(longest(result.stdout + result.stderr)).toBeLessThan(MAX_LINE);
  });
});

describe('validate --json names a source as every report does', () => {
  // Before: the file name went out as the JSON escape \u001b, so `jq -r '.errors[].source'` printed a raw ESC [8m.
  it('a control character in the catalog name is written \\u001b in the value', async () => {
    const path = write(tempDir(), 'x\u001b[8mhid\u202e.csv', `${HEADER}\n${row('A-1', 'T', 'BAD')}\n`);
    const { code, json } = await validate(path);
    expect(code).toBe(1);
    expect((json.errors[0] as unknown as { source: string }).source).toMatch(/x\\u001b\[8mhid\\u202e\.csv$/);
  });
});
