import { once } from 'node:events';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { describe, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';

/**
 * One run at a time per journal and state file: a second `publish` on the same files is refused (exit 2, naming the
 * file, the holder's pid, host and start time, and what to do) before it sends anything; a lock left by a run killed
 * with SIGKILL is taken over; `--shard K/N` jobs on one machine get journals of their own.
 *
 * Each test has its own sandbox, catalog and directory.
 */

const lockFiles = (dir: string): string[] => (existsSync(join(dir, '.listings')) ? readdirSync(join(dir, '.listings')).filter((name) => name.endsWith('.lock')) : []);

/** Wait (at most 10 s) until `dir` holds a lock file. */
async function lockAppears(dir: string, lockDir = join(dir, '.listings')): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (existsSync(lockDir) && readdirSync(lockDir).some((name) => name.endsWith('.lock'))) return;
    await sleep(20);
  }
  throw new Error(`no lock file appeared in ${lockDir}`);
}

/** A running `listings publish`, with its output gathered. */
function startPublish(args: string[], dir: string, url: string): { child: ChildProcess; exited: Promise<[number | null, NodeJS.Signals | null]>; stderr: () => string } {
  const child = spawnCli(['publish', ...args], { cwd: dir, env: publishEnv(url) });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout?.resume();
  return { child, exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>, stderr: () => stderr };
}

/** Wait (at most 10 s) until the sandbox has received `count` requests. */
async function requestsReach(sandbox: { stats(): Promise<{ requests: number }> }, count: number): Promise<void> {
  for (let waited = 0; (await sandbox.stats()).requests < count && waited < 10_000; waited += 20) await sleep(20);
}

/** Ctrl-C twice (the second abandons the requests in flight); resolves with the exit code. */
async function interrupt(run: ReturnType<typeof startPublish>): Promise<number | null> {
  run.child.kill('SIGINT');
  await sleep(300);
  run.child.kill('SIGINT');
  const [code] = await run.exited;
  return code;
}

describe('two runs on one journal or state file', () => {
  it('a second run on the same journal is refused (exit 2, pid, host, start time, how to proceed) and sends nothing', async ({ expect }) => {
    // Answers take 5 s: the first run is surely still running when the second starts, whatever the load.
    const sandbox = await startSandboxProcess(['--latency', '5000']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 8);
    const first = startPublish([catalog, '--concurrency', '4'], dir, sandbox.url);
    await lockAppears(dir);
    await requestsReach(sandbox, 4);
    const second = await runCli(['publish', catalog, '--concurrency', '4'], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 15_000 });
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`the journal .*journal-[0-9a-f]+-[0-9a-f]+\\.ndjson is in use by another run: pid ${first.child.pid} on this host \\(${hostname()}\\), started \\d{4}-\\d\\d-\\d\\dT`));
    expect(second.stderr).toMatch(/wait for that run to end, or give this run its own journal with --journal PATH/);
    expect(second.stderr).toMatch(/remove .*\.ndjson\.lock/);
    expect(second.stderr).not.toMatch(/\n\s+at /);
    // Only the first run's requests reached the service; before the lock the second sent every row again.
    expect((await sandbox.stats()).requests).toBe(4);
    expect(await interrupt(first)).toBe(130);
    expect(lockFiles(dir), 'the lock is removed at the end of the run, an interrupted one too').toEqual([]);
  });

  it('--changed-only: a second run on the same state file is refused', async ({ expect }) => {
    const sandbox = await startSandboxProcess(['--latency', '5000']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 8);
    const args = [catalog, '--changed-only', '--no-journal', '--concurrency', '4'];
    const first = startPublish(args, dir, sandbox.url);
    await lockAppears(dir);
    await requestsReach(sandbox, 4);
    const second = await runCli(['publish', ...args], { cwd: dir, env: publishEnv(sandbox.url), timeoutMs: 15_000 });
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`the state file .*state-[0-9a-f]+-[0-9a-f]+\\.ndjson is in use by another run: pid ${first.child.pid}`));
    expect(second.stderr).toMatch(/--state PATH/);
    expect((await sandbox.stats()).requests).toBe(4);
    expect(await interrupt(first)).toBe(130);
    expect(lockFiles(dir)).toEqual([]);
  });

  it('a lock left by a run killed with SIGKILL is taken over with a notice, and --resume goes on', async ({ expect }) => {
    const sandbox = await startSandboxProcess(['--latency', '200']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 12);
    const first = startPublish([catalog, '--concurrency', '4'], dir, sandbox.url);
    await lockAppears(dir);
    for (let waited = 0; (await sandbox.stats()).created < 4 && waited < 10_000; waited += 20) await sleep(20);
    first.child.kill('SIGKILL');
    await first.exited;
    const [left] = lockFiles(dir);
    expect(left, 'SIGKILL leaves the lock').toBeDefined();
    const second = await runCli(['publish', catalog, '--resume', '--concurrency', '12', '--json'], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`notice: took over the lock ${join(dir, '.listings', left!)} of pid ${first.child.pid}`);
    expect(second.stderr).toMatch(/which is no longer running/);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 12 });
    expect(await sandbox.stats()).toMatchObject({ created: 12, duplicates: 0 });
    expect(lockFiles(dir)).toEqual([]);
  });

  it('a lock held on another host is not taken over: exit 2, nothing sent, and the way to remove it', async ({ expect }) => {
    const sandbox = await startSandboxProcess();
    const dir = tempDir();
    const catalog = writeCatalog(dir, 3);
    const journal = join(dir, 'shared.ndjson');
    writeFileSync(`${journal}.lock`, `${JSON.stringify({ pid: 4242, host: 'ci-runner-7', startedAt: '2030-01-02T03:04:05.000Z' })}\n`);
    const run = await runCli(['publish', catalog, '--journal', journal], { cwd: dir, env: publishEnv(sandbox.url) });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`the journal ${journal} is in use by another run: pid 4242 on host ci-runner-7, started 2030-01-02T03:04:05.000Z`);
    expect(run.stderr).toContain(`if that run is over (a lock on another host cannot be checked from here), remove ${journal}.lock`);
    expect((await sandbox.stats()).requests).toBe(0);
    expect(existsSync(`${journal}.lock`), 'a lock of another host is left alone').toBe(true);
  });

  it('--shard 1/2 and 2/2 started together on one machine use journals of their own, and publish every row once', async ({ expect }) => {
    const sandbox = await startSandboxProcess(['--latency', '100']);
    const dir = tempDir();
    const catalog = writeCatalog(dir, 40);
    const shards = ['1/2', '2/2'].map((shard) => startPublish([catalog, '--shard', shard, '--concurrency', '8'], dir, sandbox.url));
    const exits = await Promise.all(shards.map((shard) => shard.exited));
    exits.forEach(([code], i) => expect(code, shards[i]?.stderr()).toBe(0));
    const journals = readdirSync(join(dir, '.listings')).filter((name) => name.startsWith('journal-')).sort();
    expect(journals).toEqual([expect.stringMatching(/^journal-[0-9a-f]{12}-[0-9a-f]+-shard-1of2\.ndjson$/), expect.stringMatching(/^journal-[0-9a-f]{12}-[0-9a-f]+-shard-2of2\.ndjson$/)]);
    expect(await sandbox.stats()).toMatchObject({ created: 40, duplicates: 0, requests: 40 });
  });
});
