import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cliEnv, listingsBinDir, runCli } from '../helpers/cli.js';
import { startScriptedService } from '../helpers/fake-services.js';
import { tempDir } from '../helpers/tmp.js';
import { readCsvReport } from '../helpers/publish.js';

const CATALOG = join(REPO_ROOT, 'fixtures', 'catalog.csv');

/** What a new user meets in the first runs: the failure path tried in one command, and the hints of their first mistakes. */
describe('first steps', () => {
  it('publish --sandbox takes the fault options: retries show in the report, failed rows set the exit, the journal kept out of the working directory', async () => {
    const dir = tempDir();
    const retried = await runCli(['publish', CATALOG, '--sandbox', '--fail-rate', '0.3', '--seed', '1', '--report', 'r.csv'], { cwd: dir });
    const rows = readCsvReport(join(dir, 'r.csv'));
    expect(retried.code, retried.stderr).toBe(rows.every((row) => row.outcome === 'published') ? 0 : 1);
    expect(rows.some((row) => Number(row.attempts) > 1)).toBe(true);
    expect(retried.stderr).toMatch(/overloaded \(503\)/);
    // A try-out keeps its journal out of the user's files, and says where.
    expect(existsSync(join(dir, '.listings'))).toBe(false);
    const kept = /journal of this try-out: (\S+\.ndjson) \(a --sandbox run keeps none in \.listings\/\)/.exec(retried.stderr)?.[1];
    expect(kept !== undefined && existsSync(kept)).toBe(true);

    const failing = await runCli(['publish', CATALOG, '--sandbox', '--fail-rate', '0.3', '--fail-status', '422', '--seed', '1', '--report', 'f.csv'], { cwd: dir });
    const failed = readCsvReport(join(dir, 'f.csv')).filter((row) => row.outcome === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failing.code, failing.stderr).toBe(1);
  });

  it('a fault option without --sandbox is a usage error naming it, and bad values are refused by name', async () => {
    const dir = tempDir();
    const alone = await runCli(['publish', CATALOG, '--fail-rate', '0.3', '--rate-limit', '5'], { cwd: dir });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--fail-rate, --rate-limit are faults of the embedded sandbox: add --sandbox/);
    const stream = await runCli(['stream', 'kafka://127.0.0.1:9/listings', '--group', 'g', '--latency', '20ms'], { cwd: dir });
    expect(stream.code).toBe(2);
    expect(stream.stderr).toMatch(/--latency is a fault of the embedded sandbox: add --sandbox/);
    const bad = await runCli(['publish', CATALOG, '--sandbox', '--fail-rate', '2'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fail-rate .*"2"/);
  });

  it('a header of other names gets the whole mapping as one command, which validates when pasted', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'odd.csv'), 'SKU_ID,Titel,Market,Location,Fulfillment,Payment,Return,Image\nMUG-1,Blue mug,EBAY_US,wh-1,F-1,P-1,R-1,https://example.com/a.jpg\n');
    const first = await runCli(['validate', 'odd.csv'], { cwd: dir });
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(/"Titel" for title \(did you mean title\?\)/);
    const commands = first.stderr.split('\n').filter((line) => line.trimStart().startsWith('listings '));
    expect(commands).toHaveLength(1);
    const words = commands[0]!.trim().split(' ');
    expect(words.slice(0, 3)).toEqual(['listings', 'validate', 'odd.csv']);
    const pasted = await runCli(words.slice(1), { cwd: dir });
    expect(pasted.code, pasted.stderr).toBe(0);

    // After a first --map, the next run proposes the rest, and the mapping file it offers keeps the first as well.
    const second = await runCli(['validate', 'odd.csv', '--map', 'sku=SKU_ID'], { cwd: dir });
    expect(second.code).toBe(2);
    const json = /printf '%s\\n' '(\{.*\})' > mapping\.json/.exec(second.stderr)?.[1];
    writeFileSync(join(dir, 'mapping.json'), json ?? '');
    const saved = await runCli(['validate', 'odd.csv', '--mapping', 'mapping.json'], { cwd: dir });
    expect(saved.code, saved.stderr).toBe(0);
  });

  it('a catalog behind a source header gets a pasteable mapping command: the header from a variable it names, its value never printed', async () => {
    const dir = tempDir();
    const token = "tok'$(touch PWNED)-5c1e7a9f";
    const odd = 'SKU_ID,Titel,Market,Location,Fulfillment,Payment,Return,Image\nMUG-1,Blue mug,EBAY_US,wh-1,F-1,P-1,R-1,https://example.com/a.jpg\n';
    const service = await startScriptedService((request, response) => {
      const allowed = request.headers.authorization === `Bearer ${token}` && request.headers['x-tenant'] === 'shop-7';
      response.writeHead(allowed ? 200 : 401, { 'content-type': 'text/csv' }).end(allowed ? odd : '');
    });
    const first = await runCli(['validate', `${service.url}/odd.csv`, '--source-header', `Authorization: Bearer ${token}`, '--source-header=X-Tenant: shop-7'], { cwd: dir });
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).not.toContain('5c1e7a9f');
    expect(first.stderr).not.toContain('shop-7');
    expect(first.stderr).toContain("map them all at once (first set LISTINGS_SOURCE_HEADER to the Authorization header's value, LISTINGS_SOURCE_HEADER_2 to the X-Tenant header's value: a secret is never shown):");
    const command = first.stderr.split('\n').find((line) => line.trimStart().startsWith('listings '))?.trim() ?? '';
    expect(command).toContain(`--source-header "Authorization: $LISTINGS_SOURCE_HEADER" "--source-header=X-Tenant: $LISTINGS_SOURCE_HEADER_2" --map sku=SKU_ID`);

    const pasted = spawn('sh', ['-c', command], { cwd: dir, env: cliEnv({ PATH: `${listingsBinDir()}:${process.env.PATH ?? ''}`, LISTINGS_SOURCE_HEADER: `Bearer ${token}`, LISTINGS_SOURCE_HEADER_2: 'shop-7' }) });
    let stderr = '';
    pasted.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(pasted, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    expect(existsSync(join(dir, 'PWNED'))).toBe(false);
  });

  it('a catalog at an address with credentials gets a pasteable mapping command: the address from a variable, never printed', async () => {
    const dir = tempDir();
    const odd = 'SKU_ID,Titel,Market,Location,Fulfillment,Payment,Return,Image\nMUG-1,Blue mug,EBAY_US,wh-1,F-1,P-1,R-1,https://example.com/a.jpg\n';
    const service = await startScriptedService((request, response) => {
      const allowed = request.headers.authorization === `Basic ${Buffer.from('shop:pw-7c3d9e').toString('base64')}` && request.url === '/odd.csv?token=t0k-8f2a61';
      response.writeHead(allowed ? 200 : 401, { 'content-type': 'text/csv' }).end(allowed ? odd : '');
    });
    const address = service.url.replace('http://', 'http://shop:pw-7c3d9e@');
    const first = await runCli(['validate', `${address}/odd.csv?token=t0k-8f2a61`], { cwd: dir });
    expect(first.code, first.stderr).toBe(2);
    for (const secret of ['pw-7c3d9e', 't0k-8f2a61']) expect(first.stderr).not.toContain(secret);
    expect(first.stderr).toMatch(/map them all at once \(first set LISTINGS_SOURCE_URL to http:\/\/\*\*\*\*@127\.0\.0\.1:\d+\/odd\.csv\?token=\*\*\*\* with its credentials: a secret is never shown\):/);
    const command = first.stderr.split('\n').find((line) => line.trimStart().startsWith('listings '))?.trim() ?? '';
    expect(command).toMatch(/^listings validate "\$LISTINGS_SOURCE_URL" --map sku=SKU_ID --map title=Titel /);

    const pasted = spawn('sh', ['-c', command], { cwd: dir, env: cliEnv({ PATH: `${listingsBinDir()}:${process.env.PATH ?? ''}`, LISTINGS_SOURCE_URL: `${address}/odd.csv?token=t0k-8f2a61` }) });
    let stderr = '';
    pasted.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(pasted, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
  });

  it('the first mistakes get a next step: a near file name, keys from the environment, never a key echoed, --saved-defaults', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'catalog.csv'), 'sku\n');
    const typo = await runCli(['validate', 'catalgo.csv'], { cwd: dir });
    expect(typo.code).toBe(4);
    expect(typo.stderr).toContain('hint  did you mean catalog.csv?');

    const key = 'sk_live_51HxAbCdEf0123456789';
    const asOption = await runCli(['publish', 'catalog.csv', `--api-key=${key}`], { cwd: dir });
    expect(asOption.code).toBe(2);
    expect(asOption.stderr).toMatch(/an API key is never given on the command line.*export LISTINGS_API_KEY=<key>/);
    const asName = await runCli(['publish', CATALOG, '--api-key-env', key, '--base-url', 'https://api.example.com'], { cwd: dir });
    expect(asName.code).toBe(2);
    expect(asName.stderr).toContain('that looks like a key, not the name of a variable');
    for (const result of [asOption, asName]) expect(result.stderr).not.toContain(key);

    const init = await runCli(['init', '--yes', '--base-url', 'https://api.example.com', '--marketplace', 'EBAY_US', '--merchant-location-key', 'wh', '--fulfillment-policy-id', 'F', '--payment-policy-id', 'P', '--return-policy-id', 'R', '--no-check'], {
      cwd: dir,
      env: { LISTINGS_CONFIG_DIR: join(dir, 'config') },
    });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toMatch(/Marketplace configurations saved .*--saved-defaults/);
  });
});
