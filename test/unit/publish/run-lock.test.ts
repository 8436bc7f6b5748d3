import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunLockedError } from '../../../src/errors.js';
import { acquireRunLocks, lockPathOf } from '../../../src/publish/run-lock.js';
import { defaultJournalPath, runFilePath } from '../../../src/publish/journal.js';
import { sandboxTarget } from '../../../src/publish/run-target.js';
import { tempDir } from '../../helpers/tmp.js';

/** The pid of a process that has ended (a pid is reused only much later). */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  if (pid === undefined) throw new Error('no pid');
  return pid;
}

function refusalOf(promise: Promise<unknown>): Promise<RunLockedError> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(RunLockedError);
      return error as RunLockedError;
    },
  );
}

describe('acquireRunLocks', () => {
  it('writes <file>.lock with pid, host and start time, refuses a second holder, and removes it on release', async () => {
    const dir = tempDir();
    const journal = join(dir, 'deep', 'journal.ndjson');
    const locks = await acquireRunLocks([{ path: journal, role: 'journal', elsewhere: '--journal PATH' }]);
    expect(locks.takenOver).toEqual([]);
    const holder = JSON.parse(readFileSync(lockPathOf(journal), 'utf8')) as Record<string, unknown>;
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect(Date.parse(String(holder.startedAt))).toBeGreaterThan(Date.now() - 60_000);
    const refused = await refusalOf(acquireRunLocks([{ path: journal, role: 'journal', elsewhere: '--journal PATH' }]));
    expect(refused.kind).toBe('config');
    expect(refused.holder).toEqual(holder);
    expect(refused.lockPath).toBe(lockPathOf(journal));
    expect(refused.message).toMatch(new RegExp(`^the journal ${journal} is in use by another run: pid ${process.pid} on this host`));
    expect(refused.hint).toMatch(/give this run its own journal with --journal PATH/);
    await locks.release();
    expect(existsSync(lockPathOf(journal))).toBe(false);
    expect(readdirSync(join(dir, 'deep')), 'no temporary file is left').toEqual([]);
    const again = await acquireRunLocks([{ path: journal, role: 'journal' }]);
    await again.release();
  });

  it('takes over the lock of a dead process on this host, and says so', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.ndjson');
    const stale = { pid: deadPid(), host: hostname(), startedAt: '2020-01-01T00:00:00.000Z' };
    writeFileSync(lockPathOf(state), JSON.stringify(stale));
    const locks = await acquireRunLocks([{ path: state, role: 'state file' }]);
    expect(locks.takenOver).toEqual([{ path: state, lockPath: lockPathOf(state), holder: stale }]);
    expect(JSON.parse(readFileSync(lockPathOf(state), 'utf8'))).toMatchObject({ pid: process.pid });
    await locks.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never takes over a lock of another host, nor an unreadable one', async () => {
    const dir = tempDir();
    const journal = join(dir, 'j.ndjson');
    writeFileSync(lockPathOf(journal), JSON.stringify({ pid: deadPid(), host: `not-${hostname()}`, startedAt: '2020-01-01T00:00:00.000Z' }));
    const other = await refusalOf(acquireRunLocks([{ path: journal, role: 'journal' }]));
    expect(other.message).toMatch(/on host not-/);
    expect(other.hint).toMatch(/cannot be checked from here/);
    writeFileSync(lockPathOf(journal), '');
    const unreadable = await refusalOf(acquireRunLocks([{ path: journal, role: 'journal' }]));
    expect(unreadable.holder).toBeUndefined();
    expect(unreadable.message).toMatch(/does not say which run holds it/);
    expect(unreadable.hint).toContain(`remove ${lockPathOf(journal)}`);
  });

  it('takes all the locks or none: a refusal on the second releases the first', async () => {
    const dir = tempDir();
    const [journal, state] = [join(dir, 'j.ndjson'), join(dir, 's.ndjson')];
    const held = await acquireRunLocks([{ path: state, role: 'state file' }]);
    await refusalOf(acquireRunLocks([{ path: journal, role: 'journal' }, { path: state, role: 'state file' }]));
    expect(existsSync(lockPathOf(journal))).toBe(false);
    await held.release();
  });

  it('leaves alone a lock that is no longer its own, and does not lock what is not a regular file', async () => {
    const dir = tempDir();
    const journal = join(dir, 'j.ndjson');
    const locks = await acquireRunLocks([{ path: journal, role: 'journal' }]);
    const someoneElse = JSON.stringify({ pid: 1, host: 'elsewhere', startedAt: '2030-01-01T00:00:00.000Z' });
    writeFileSync(lockPathOf(journal), someoneElse);
    await locks.release();
    expect(readFileSync(lockPathOf(journal), 'utf8')).toBe(someoneElse);
    const devNull = await acquireRunLocks([{ path: '/dev/null', role: 'journal' }]);
    expect(existsSync('/dev/null.lock')).toBe(false);
    await devNull.release();
  });

  it('resolves a relative path against the given working directory', async () => {
    const dir = tempDir();
    const locks = await acquireRunLocks([{ path: 'j.ndjson', role: 'journal' }], dir);
    expect(existsSync(join(dir, 'j.ndjson.lock'))).toBe(true);
    await locks.release();
  });
});

describe('default journal and state of a shard', () => {
  const target = sandboxTarget('EBAY_US', 'flat');
  it('adds -shard-KofN to the name, so the jobs of a matrix on one machine do not share files', () => {
    const cwd = tempDir();
    const plain = defaultJournalPath('catalog.csv', cwd, target);
    const two = defaultJournalPath('catalog.csv', cwd, target, { index: 2, count: 3 });
    expect(two).toBe(plain.replace(/\.ndjson$/, '-shard-2of3.ndjson'));
    expect(defaultJournalPath('catalog.csv', cwd, target, { index: 1, count: 3 })).not.toBe(two);
    expect(runFilePath('state', 'catalog.csv', cwd, target, { index: 2, count: 3 })).toMatch(/\/\.listings\/state-[0-9a-f]{12}-[0-9a-f]+-shard-2of3\.ndjson$/);
  });
});
