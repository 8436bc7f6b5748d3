import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';

const ROWS = 30;

/** The journal and the --changed-only state belong to (source, target): a try-out never feeds the real run. */
describe('state and journal bound to their target', () => {
  it('--changed-only and --resume after a --sandbox try-out send every row to the real service', async () => {
    const real = await startSandboxProcess();
    const dir = tempDir();
    const catalog = writeCatalog(dir, ROWS);
    const tryOut = await runCli(['publish', catalog, '--sandbox', '--changed-only', '--json'], { cwd: dir });
    expect(tryOut.code, tryOut.stderr).toBe(0);
    expect(JSON.parse(tryOut.stdout)).toMatchObject({ published: ROWS });

    const changedOnly = await runCli(['publish', catalog, '--changed-only', '--json'], { cwd: dir, env: publishEnv(real.url) });
    expect(changedOnly.code, changedOnly.stderr).toBe(0);
    expect(JSON.parse(changedOnly.stdout)).toMatchObject({ published: ROWS, skipped: 0 });
    const resumed = await runCli(['publish', catalog, '--resume', '--json'], { cwd: dir, env: publishEnv(real.url) });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The real run's own journal is resumed: every row is already published there, none is sent twice.
    expect(JSON.parse(resumed.stdout)).toMatchObject({ published: 0, skipped: ROWS });
    expect(await real.stats()).toMatchObject({ created: ROWS, duplicates: 0 });
    await real.stop();
  });

  it('an explicit --state or --journal of another service is ignored with a notice, never applied', async () => {
    const [staging, production] = await Promise.all([startSandboxProcess(), startSandboxProcess()]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, ROWS);
    const files = ['--changed-only', '--state', join(dir, 'state.ndjson'), '--journal', join(dir, 'journal.ndjson'), '--json'];
    expect((await runCli(['publish', catalog, ...files], { cwd: dir, env: publishEnv(staging.url) })).code).toBe(0);

    const changed = await runCli(['publish', catalog, ...files], { cwd: dir, env: publishEnv(production.url) });
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toMatch(/state\.ndjson belongs to another target, http:\/\/127\.0\.0\.1:\d+ \(\(per row\), flat, workspace [0-9a-f]{8}\): it is ignored/);
    expect(JSON.parse(changed.stdout)).toMatchObject({ published: ROWS });
    expect(await production.stats()).toMatchObject({ created: ROWS });
    // The state now belongs to production, and holds no key.
    expect(readFileSync(join(dir, 'state.ndjson'), 'utf8').split('\n')[0]).toContain(production.url);
    expect(readFileSync(join(dir, 'state.ndjson'), 'utf8')).not.toContain('sandbox-key');

    const resumed = await runCli(['publish', catalog, '--resume', '--journal', join(dir, 'journal.ndjson'), '--json'], { cwd: dir, env: publishEnv(staging.url) });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The journal holds production's run only (a run without --resume starts it afresh): none of it counts on staging.
    expect(resumed.stderr).toMatch(/journal\.ndjson holds a run against another target/);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ published: ROWS, skipped: 0 });
    await Promise.all([staging.stop(), production.stop()]);
  });

  it('--resume where there is no journal says so, and sends every row', async () => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const catalog = writeCatalog(dir, 5);
    const run = await runCli(['publish', catalog, '--resume', '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/warning: --resume: there is no journal at .*journal-[0-9a-f]{12}-[0-9a-f]{8}\.ndjson, so every row is sent/);
    expect(await sandbox.stats()).toMatchObject({ created: 5 });
    await sandbox.stop();
  });
});

// Real exports none of us wrote (../shared/testdata/README.md), read in place, never copied into the repository.
const CATALOGS = join(REPO_ROOT, '..', 'shared', 'testdata', 'catalogs');
const REAL = [
  { file: join(CATALOGS, 'shopify', 'jewelery.csv'), args: ['--preset', 'shopify'] },
  { file: join(CATALOGS, 'magento2-sample-data', 'CatalogSampleData__SimpleProduct__products_gear_bags.csv'), args: ['--map', 'title=name'] },
];
const realPresent = REAL.every(({ file }) => existsSync(file));
const DEFAULTS = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'wh-1', '--fulfillment-policy-id', 'F-1', '--payment-policy-id', 'P-1', '--return-policy-id', 'R-1'];

describe.skipIf(!realPresent)(realPresent ? 'real catalogs, try-out then real targets' : `real catalogs (skipped: ${CATALOGS} is absent)`, () => {
  it.each(REAL)('$file: after a --sandbox try-out with --changed-only and a journal, a second service receives every row by --resume and a third by --changed-only', async ({ file, args }) => {
    const dir = tempDir();
    const tryOut = await runCli(['publish', file, ...args, ...DEFAULTS, '--sandbox', '--changed-only', '--json'], { cwd: dir });
    expect(tryOut.code, tryOut.stderr).toBe(0);
    const listings = (JSON.parse(tryOut.stdout) as { published: number }).published;
    expect(listings).toBeGreaterThan(10);

    const [second, third] = await Promise.all([startSandboxProcess(), startSandboxProcess()]);
    const resumed = await runCli(['publish', file, ...args, ...DEFAULTS, '--resume', '--json'], { cwd: dir, env: publishEnv(second.url) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ published: listings, skipped: 0 });
    const changed = await runCli(['publish', file, ...args, ...DEFAULTS, '--changed-only', '--json'], { cwd: dir, env: publishEnv(third.url) });
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ published: listings, skipped: 0 });
    expect(await second.stats()).toMatchObject({ created: listings, duplicates: 0 });
    expect(await third.stats()).toMatchObject({ created: listings, duplicates: 0 });
    // And each target's own state works: the third service's second --changed-only sends nothing.
    const again = await runCli(['publish', file, ...args, ...DEFAULTS, '--changed-only', '--json'], { cwd: dir, env: publishEnv(third.url) });
    expect(JSON.parse(again.stdout)).toMatchObject({ published: 0, skipped: listings });
    await Promise.all([second.stop(), third.stop()]);
  });
});
