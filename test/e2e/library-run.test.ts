import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, publishEnv, readCsvReport, writeCatalog } from '../helpers/publish.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import type { PublishSpec } from 'listings-cli';

// The built package, imported by its own name through the `exports` map, as a user of the library would.
const lib = await import('listings-cli');

const KEY = 'library-run-key';
// Every fifth row has an image that is not a URL: invalid, never sent.
const invalidEvery5 = (i: number): string => (i % 5 === 0 ? csvRow(i).replace(`https://images.example.com/${i}/a.jpg`, 'images/a.jpg') : csvRow(i));

/** `listings publish CATALOG` with the environment of publishEnv(url, KEY), as a library caller writes it. */
function specOf(catalog: string, url: string, client: InstanceType<typeof lib.ListingsClient>, cwd: string, more: Pick<PublishSpec, 'selection'> & { reports?: string[] }): PublishSpec {
  return {
    kind: 'publish',
    source: { sources: [catalog], catalog: {} },
    target: {
      defaults: { shape: 'flat', saved_defaults: false },
      sender: client,
      identity: lib.runTarget({ baseUrl: url, apiKey: KEY, marketplace: undefined, shape: 'flat' }),
      label: new URL(url).host,
    },
    ...(more.selection === undefined ? {} : { selection: more.selection }),
    // Named as the CLI names the settings (its flags), so that a row's issue reads the same in both reports.
    outputs: { reports: more.reports ?? [], cwd, name: (key) => `--${key.replaceAll('_', '-')}` },
  };
}

/** What differs between two runs of the same rows: the time each took, and the names the reports were given. */
function timeless(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(timeless);
  if (value === null || typeof value !== 'object') return value;
  const volatile = new Set(['duration_ms', 'rows_per_second', 'peak_concurrency', 'report']);
  return Object.fromEntries(Object.entries(value).filter(([key]) => !volatile.has(key)).map(([key, field]) => [key, timeless(field)]));
}

function csvRows(path: string): unknown {
  return timeless(readCsvReport(path));
}

function jsonReport(path: string): unknown {
  return timeless(JSON.parse(readFileSync(path, 'utf8')));
}

describe('runPublishSpec: the library runs what `listings publish` runs', () => {
  it('with a journal, a changed-only state and csv and json reports, it ends with the CLI verdict and writes the same reports', async () => {
    const [forLibrary, forCli] = await Promise.all([startSandboxProcess(['--api-key', KEY]), startSandboxProcess(['--api-key', KEY])]);
    const client = new lib.ListingsClient({ baseUrl: forLibrary.url, apiKey: KEY });
    try {
      const catalog = writeCatalog(tempDir(), 10, 'catalog.csv', invalidEvery5);
      const cliDir = tempDir();
      const cli = await runCli(['publish', catalog, '--changed-only', '--report', 'run.csv', '--report', 'run.json', '--log-format', 'json'], { cwd: cliDir, env: publishEnv(forCli.url, KEY) });
      const libDir = tempDir();
      const reports = [join(libDir, 'run.csv'), join(libDir, 'run.json')];
      const result = await lib.runPublishSpec(specOf(catalog, forLibrary.url, client, libDir, { selection: { changedOnly: true }, reports }));

      const last = JSON.parse(cli.stderr.trim().split('\n').at(-1) ?? '{}') as { end?: { exit_code?: number; why?: string }; summary?: object };
      expect(cli.code, cli.stderr).toBe(1);
      expect(result.verdict).toEqual({ kind: 'rows-failed', exitCode: 1, why: '2 rows invalid; 8 published' });
      expect(last.end).toMatchObject({ exit_code: result.verdict.exitCode, why: result.verdict.why });
      expect(timeless(result.summary)).toEqual(timeless(last.summary));
      expect(result.summary.report).toEqual(reports);
      expect(result.rowErrors.map((row) => row.location.line)).toEqual([2, 7]);

      expect(csvRows(reports[0] ?? '')).toEqual(csvRows(join(cliDir, 'run.csv')));
      expect(jsonReport(reports[1] ?? '')).toEqual(jsonReport(join(cliDir, 'run.json')));
      // The journal and the state where the CLI keeps them: under the working directory given, per source and target.
      expect(result.journalPath?.startsWith(join(libDir, '.listings', 'journal-'))).toBe(true);
      expect(result.statePath?.startsWith(join(libDir, '.listings', 'state-'))).toBe(true);
      expect(existsSync(result.journalPath ?? '')).toBe(true);
      expect(existsSync(result.statePath ?? '')).toBe(true);
      expect((await forLibrary.stats()).created).toBe(8);

      // The state written: a second run sends nothing it already sent.
      const again = await lib.runPublishSpec(specOf(catalog, forLibrary.url, client, libDir, { selection: { changedOnly: true } }));
      expect(again.summary).toMatchObject({ published: 0, skipped: 8, invalid: 2 });
      expect(again.verdict.exitCode).toBe(1);
      expect((await forLibrary.stats()).created).toBe(8);
    } finally {
      await client.close();
      await Promise.all([forLibrary.stop(), forCli.stop()]);
    }
  });

  it('resumes from the journal a CLI run kept in the same directory: what it published is skipped, the rest sent', async () => {
    const sandbox = await startSandboxProcess(['--api-key', KEY]);
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: KEY });
    try {
      const dir = tempDir();
      const catalog = writeCatalog(dir, 10);
      const cli = await runCli(['publish', catalog], { cwd: dir, env: publishEnv(sandbox.url, KEY) });
      expect(cli.code, cli.stderr).toBe(0);
      // Five rows more since the CLI's run: only they are new to the journal.
      writeCatalog(dir, 15);

      const notices: unknown[] = [];
      const result = await lib.runPublishSpec(specOf(catalog, sandbox.url, client, dir, { selection: { resume: true } }), { onRunNotice: (notice) => notices.push(notice) });
      expect(result.verdict).toEqual({ kind: 'ok', exitCode: 0, why: '5 rows published, 10 skipped' });
      expect(result.summary).toMatchObject({ rows: 15, published: 5, skipped: 10 });
      expect(notices).toEqual([]);
      expect((await sandbox.stats()).created).toBe(15);

      // From another directory the journal is not found, and the run says so as data.
      const elsewhere = await lib.runPublishSpec(specOf(catalog, sandbox.url, client, tempDir(), { selection: { resume: true } }));
      expect(elsewhere.notices).toEqual([{ kind: 'journal-missing', path: expect.stringContaining('.listings') as unknown }]);
      expect(elsewhere.summary).toMatchObject({ rows: 15, published: 15, skipped: 0 });
    } finally {
      await client.close();
      await sandbox.stop();
    }
  });
});
