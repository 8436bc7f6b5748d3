import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv, writeCatalog } from './publish-helpers.js';

/**
 * Every output of a run (reports, journal, state) is checked before the first request: a path that cannot be
 * written is exit 2 with a message naming it, and the service receives nothing.
 */
describe.concurrent('listings publish: outputs are checked before anything is sent', () => {
  const cases: [string, (dir: string, catalog: string) => string[], RegExp][] = [
    ['a report that is a directory', (dir) => (mkdirSync(join(dir, 'out.csv')), ['--report', join(dir, 'out.csv')]), /cannot write the report .*out\.csv: it is a directory/],
    ['the same report twice', (dir) => ['--report', join(dir, 'r.csv'), '--report', join(dir, '.', 'r.csv')], /the report .*r\.csv is named twice/],
    ['a report on the journal', (dir) => ['--report', join(dir, 'j.ndjson'), '--journal', join(dir, 'j.ndjson')], /the report and the journal are the same file/],
    ['a journal under a file', (_dir, catalog) => ['--journal', join(catalog, 'j.ndjson')], /cannot write the journal .*: .*catalog\.csv is not a directory/],
    ['a state file under a file', (_dir, catalog) => ['--changed-only', '--state', join(catalog, 's.ndjson')], /cannot write the state file .*: .*catalog\.csv is not a directory/],
    ['a report under a file', (_dir, catalog) => ['--report', join(catalog, 'r.csv')], /cannot write the report .*: .*catalog\.csv is not a directory/],
    // A directory that cannot be made (a recursive mkdir under /proc never returns: the check makes one level at a time).
    ['a journal where no directory can be made', () => ['--journal', '/proc/listings-no-such-dir/j.ndjson'], /cannot write the journal .*: cannot create the directory \/proc\/listings-no-such-dir/],
  ];
  it.each(cases)('%s: exit 2, named, nothing sent', async (_name, args, message) => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 30);
    const result = await runCli(['publish', catalog, ...args(dir, catalog)], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    expect((await sandbox.stats()).requests).toBe(0);
  });

  it('a report in a directory that does not exist yet is fine: it is created', async () => {
    const sandbox = await startSandboxProcess([]);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 30);
    const result = await runCli(['publish', catalog, '--report', join(dir, 'new', 'deeper', 'r.csv')], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(result.code, result.stderr).toBe(0);
    expect((await sandbox.stats()).created).toBe(30);
  });
});
