import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { startScriptedService, type SeenRequest } from '../helpers/fake-services.js';
import { tempDir } from '../helpers/tmp.js';
import { interrupted, publishEnv, readCsvReport } from '../helpers/publish.js';

/** The location key and policy ids as flags: given on the command line, they apply to every marketplace. */
const POLICY_FLAGS = ['--merchant-location-key', 'warehouse-1', '--fulfillment-policy-id', 'FULFILL-1', '--payment-policy-id', 'PAY-1', '--return-policy-id', 'RETURN-1'];

/** A catalog of `rows` rows with no marketplace column: every row goes to each marketplace of the run. */
function writePlainCatalog(dir: string, rows: number, name = 'catalog.csv'): string {
  const lines = ['sku,title,images_source'];
  for (let i = 0; i < rows; i++) lines.push(`SKU-${String(i).padStart(6, '0')},Item ${i},https://images.example.com/${i}/a.jpg`);
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A listing service on loopback that keeps every body it was sent and answers 201 with a listing. */
async function startRecordingService() {
  return startScriptedService((request: SeenRequest, response) => {
    const body = JSON.parse(request.body) as { sku: string; marketplace: string };
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ sku: body.sku, status: 'ready', title: `${body.sku} on ${body.marketplace}`, item_specifics: [] }));
  });
}

describe('one SKU on several marketplaces: a listing is (marketplace, SKU)', () => {
  it('3 SKUs on 2 marketplaces each (a marketplace column) publish 6 listings; the one real duplicate pair is invalid once, naming the first', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const catalog = join(dir, 'catalog.csv');
    const image = 'https://images.example.com/a.jpg';
    const rows = ['A1,EBAY_US', 'A1,EBAY_GB', 'B2,EBAY_US', 'B2,EBAY_GB', 'C3,EBAY_US', 'C3,EBAY_GB', 'A1,EBAY_GB'];
    writeFileSync(catalog, `sku,marketplace,title,images_source\n${rows.map((row) => `${row},Item,${image}`).join('\n')}\n`);
    const report = join(dir, 'report.csv');
    const result = await runCli(['publish', catalog, ...POLICY_FLAGS, '--report', report, '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(1);
    expect(await sandbox.stats()).toMatchObject({ created: 6, duplicates: 0, requests: 6 });
    const lines = readCsvReport(report);
    expect(lines).toHaveLength(7);
    expect(lines.filter((line) => line.outcome === 'published').map((line) => `${line.marketplace}/${line.sku}`).sort()).toEqual(['EBAY_GB/A1', 'EBAY_GB/B2', 'EBAY_GB/C3', 'EBAY_US/A1', 'EBAY_US/B2', 'EBAY_US/C3']);
    const invalid = lines.filter((line) => line.outcome === 'invalid');
    expect(invalid).toEqual([expect.objectContaining({ line: '8', sku: 'A1', marketplace: 'EBAY_GB', error: `sku: duplicate SKU; first seen at ${catalog}:3` })]);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ rows: 7, published: 6, invalid: 1 });
    expect(summary.by_marketplace).toEqual({
      EBAY_GB: { rows: 4, published: 3, failed: 0, invalid: 1, skipped: 0, not_attempted: 0, validated: 0, enqueued: 0 },
      EBAY_US: { rows: 3, published: 3, failed: 0, invalid: 0, skipped: 0, not_attempted: 0, validated: 0, enqueued: 0 },
    });
    expect(result.stderr).toContain('by marketplace: EBAY_GB 3 published, 1 invalid; EBAY_US 3 published');

    // validate says the same, naming the marketplace of the row.
    const validated = await runCli(['validate', catalog, ...POLICY_FLAGS], { cwd: dir });
    expect(validated.code).toBe(1);
    expect(validated.stdout.trim().split('\n')).toEqual([`${catalog}:8: [EBAY_GB] sku: duplicate SKU; first seen at ${catalog}:3`]);
    // Then the next step: fix the row, validate again (test/e2e/next-step.test.ts).
    expect(validated.stderr.trim().split('\n').slice(0, 2)).toEqual(['7 rows: 6 valid, 1 invalid', 'next  fix the 1 invalid row at the lines shown, then validate again:']);
  });
});

describe('--marketplace A,B: every row to each marketplace, with each one its defaults', () => {
  it('1,000 rows send 2,000 requests, each with its marketplace\'s own policy id; the report has 2,000 lines', async () => {
    const service = await startRecordingService();
    const dir = tempDir();
    const config = join(dir, 'config');
    const env = { ...publishEnv(service.url), LISTINGS_CONFIG_DIR: config };
    // The profile's general values, a section for EBAY_GB, and an environment variable of EBAY_US's own.
    for (const args of [
      ['marketplace', 'EBAY_US,EBAY_GB'],
      ['merchant_location_key', 'warehouse-1'],
      ['fulfillment_policy_id', 'FULFILL-GENERAL'],
      ['payment_policy_id', 'PAY-1'],
      ['return_policy_id', 'RETURN-1'],
      ['fulfillment_policy_id', 'FULFILL-GB', '--marketplace', 'EBAY_GB'],
      ['merchant_location_key', 'warehouse-london', '--marketplace', 'EBAY_GB'],
      ['condition', 'USED_EXCELLENT', '--marketplace', 'EBAY_GB'],
    ]) {
      const set = await runCli(['config', 'set', ...args], { env: { LISTINGS_CONFIG_DIR: config } });
      expect(set.code, set.stderr).toBe(0);
    }
    const listed = await runCli(['config', 'list'], { env: { ...env, LISTINGS_EBAY_US_FULFILLMENT_POLICY_ID: 'FULFILL-US' } });
    expect(listed.stdout).toMatch(/EBAY_GB\.fulfillment_policy_id\s+FULFILL-GB\s+\(profile, EBAY_GB section\)/);
    expect(listed.stdout).toMatch(/EBAY_US\.fulfillment_policy_id\s+FULFILL-US\s+\(env LISTINGS_EBAY_US_FULFILLMENT_POLICY_ID\)/);
    expect(listed.stdout).toMatch(/^marketplace\s+EBAY_US,EBAY_GB\s+\(profile\)$/m);

    const catalog = writePlainCatalog(dir, 1000);
    const report = join(dir, 'report.csv');
    // A flag applies to every marketplace: the payment policy of both is PAY-FLAG, whatever the profile says.
    const result = await runCli(['publish', catalog, '--payment-policy-id', 'PAY-FLAG', '--report', report, '--json'], {
      cwd: dir,
      env: { ...env, LISTINGS_EBAY_US_FULFILLMENT_POLICY_ID: 'FULFILL-US' },
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(service.requests).toHaveLength(2000);
    const seen = new Map<string, number>();
    for (const request of service.requests) {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      const key = [body.marketplace, body.merchant_location_key, body.fulfillment_policy_id, body.payment_policy_id, body.return_policy_id, JSON.stringify(body.overrides ?? null)].join(' ');
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(seen)).toEqual({
      'EBAY_US warehouse-1 FULFILL-US PAY-FLAG RETURN-1 null': 1000,
      'EBAY_GB warehouse-london FULFILL-GB PAY-FLAG RETURN-1 {"condition":"USED_EXCELLENT"}': 1000,
    });
    // Each (marketplace, SKU) exactly once.
    const pairs = new Set(service.requests.map((request) => {
      const body = JSON.parse(request.body) as { marketplace: string; sku: string };
      return `${body.marketplace}/${body.sku}`;
    }));
    expect(pairs.size).toBe(2000);
    const lines = readCsvReport(report);
    expect(lines).toHaveLength(2000);
    expect(lines.every((line) => line.outcome === 'published')).toBe(true);
    // One line per (row, marketplace), in input order: row 1 on EBAY_US, then on EBAY_GB, then row 2 ...
    expect(lines.slice(0, 4).map((line) => `${line.line}:${line.marketplace}`)).toEqual(['2:EBAY_US', '2:EBAY_GB', '3:EBAY_US', '3:EBAY_GB']);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 2000, published: 2000, total: 2000, by_marketplace: { EBAY_GB: { published: 1000 }, EBAY_US: { published: 1000 } } });

    // A row with a marketplace of its own is not fanned out, and takes that marketplace's defaults.
    const own = join(dir, 'own.csv');
    writeFileSync(own, 'sku,marketplace,images_source\nX-1,EBAY_GB,https://images.example.com/x.jpg\nX-2,,https://images.example.com/y.jpg\n');
    const before = service.requests.length;
    const mixed = await runCli(['publish', own, '--report', join(dir, 'own-report.csv')], { cwd: dir, env });
    expect(mixed.code, mixed.stderr).toBe(0);
    const sent = service.requests.slice(before).map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(sent.map((body) => `${String(body.sku)}/${String(body.marketplace)}/${String(body.fulfillment_policy_id)}`).sort()).toEqual(['X-1/EBAY_GB/FULFILL-GB', 'X-2/EBAY_GB/FULFILL-GB', 'X-2/EBAY_US/FULFILL-GENERAL']);
  });

  it('a marketplace whose section lacks a policy id the others have: one error before anything is sent, naming it', async () => {
    const service = await startRecordingService();
    const dir = tempDir();
    const config = join(dir, 'config');
    for (const args of [['fulfillment_policy_id', 'FULFILL-US', '--marketplace', 'EBAY_US']]) {
      expect((await runCli(['config', 'set', ...args], { env: { LISTINGS_CONFIG_DIR: config } })).code).toBe(0);
    }
    const catalog = writePlainCatalog(dir, 5);
    const flags = ['--marketplace', 'EBAY_US,EBAY_GB', '--merchant-location-key', 'w', '--payment-policy-id', 'p', '--return-policy-id', 'r'];
    const result = await runCli(['publish', catalog, ...flags], { cwd: dir, env: { ...publishEnv(service.url), LISTINGS_CONFIG_DIR: config } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('fulfillment_policy_id for EBAY_GB is not set');
    expect(result.stderr).toContain('LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID=<id>');
    expect(result.stderr).toContain('`listings config set fulfillment_policy_id <id> --marketplace EBAY_GB`');
    expect(service.requests).toHaveLength(0);
  });

  it('the wrapped shape has no region: EBAY_US and EBAY_GB would be one marketplace, so the run is refused', async () => {
    const dir = tempDir();
    const catalog = writePlainCatalog(dir, 3);
    const result = await runCli(['validate', catalog, '--shape', 'wrapped', '--marketplace', 'EBAY_US,EBAY_GB'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('EBAY_US and EBAY_GB are one marketplace (ebay) in the wrapped shape');
  });
});

describe('--resume and --changed-only across a fan-out run', () => {
  const FAN_OUT = ['--marketplace', 'EBAY_US,EBAY_GB,EBAY_DE', ...POLICY_FLAGS];
  const ROWS = 300;

  for (const mode of ['--resume', '--changed-only'] as const) {
    it(`${mode}: after an interrupt, the next run sends every listing not published and none that was`, async () => {
      const sandbox = await startSandboxProcess(['--latency', '20-30']);
      const dir = tempDir();
      const catalog = writePlainCatalog(dir, ROWS);
      const extra = mode === '--changed-only' ? ['--changed-only'] : [];
      const first = await interrupted(['publish', catalog, ...FAN_OUT, ...extra, '--concurrency', '4', '--report', join(dir, 'first.csv')], dir, sandbox.url, () => sandbox.stats(), 'SIGINT');
      expect(first.code, first.stderr).toBe(130);
      const firstLines = readCsvReport(join(dir, 'first.csv'));
      const publishedFirst = new Set(firstLines.filter((line) => line.outcome === 'published').map((line) => `${line.marketplace}/${line.sku}`));
      const before = await sandbox.stats();
      expect(before.created).toBe(publishedFirst.size);
      expect(before.created).toBeGreaterThan(0);
      expect(before.created).toBeLessThan(ROWS * 3);

      const second = await runCli(['publish', catalog, ...FAN_OUT, mode, '--report', join(dir, 'second.csv')], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      const after = await sandbox.stats();
      // Nothing published is sent again (not even answered from its key), everything else is sent once.
      expect(after.requests - before.requests).toBe(ROWS * 3 - publishedFirst.size);
      expect(after.replayed).toBe(0);
      expect(after).toMatchObject({ created: ROWS * 3, duplicates: 0 });
      const lines = readCsvReport(join(dir, 'second.csv'));
      expect(lines).toHaveLength(ROWS * 3);
      const reason = mode === '--resume' ? 'already published' : 'unchanged';
      const skipped = lines.filter((line) => line.outcome === 'skipped');
      expect(new Set(skipped.map((line) => `${line.marketplace}/${line.sku}`))).toEqual(publishedFirst);
      expect(skipped.every((line) => line.reason === reason)).toBe(true);
      expect(lines.filter((line) => line.outcome === 'published')).toHaveLength(ROWS * 3 - publishedFirst.size);

      // The state (or journal) names every marketplace of the target, and the next run skips all of it.
      const files = readdirSync(join(dir, '.listings'));
      const file = join(dir, '.listings', files.find((name) => name.startsWith(mode === '--resume' ? 'journal-' : 'state-') && !name.endsWith('.lock'))!);
      expect(readFileSync(file, 'utf8').split('\n', 1)[0]).toContain('"marketplace":"EBAY_DE,EBAY_GB,EBAY_US"');
      const third = await runCli(['publish', catalog, ...FAN_OUT, mode, '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(third.code, third.stderr).toBe(0);
      expect(JSON.parse(third.stdout)).toMatchObject({ rows: ROWS * 3, skipped: ROWS * 3, requests: 0 });
    });
  }

  it('--retry-failed of an interrupted fan-out report sends exactly the listings it did not publish', async () => {
    const sandbox = await startSandboxProcess(['--latency', '20-30']);
    const dir = tempDir();
    const catalog = writePlainCatalog(dir, ROWS);
    const first = await interrupted(['publish', catalog, ...FAN_OUT, '--no-journal', '--concurrency', '4', '--report', join(dir, 'first.csv')], dir, sandbox.url, () => sandbox.stats(), 'SIGINT');
    expect(first.code, first.stderr).toBe(130);
    const before = await sandbox.stats();
    const second = await runCli(['publish', catalog, ...FAN_OUT, '--retry-failed', join(dir, 'first.csv'), '--report', join(dir, 'second.csv')], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    const after = await sandbox.stats();
    expect(after.requests - before.requests).toBe(ROWS * 3 - before.created);
    expect(after).toMatchObject({ created: ROWS * 3, duplicates: 0, replayed: 0 });
  });
});
