import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { link, open, rename, stat, unlink } from 'node:fs/promises';
import { readSmallText, TooLargeError } from '../fs/small-text.js';
import { FifoError } from '../fs/open-to-read.js';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { RunLockedError, type LockHolder } from '../errors.js';
import { NAME_MAX, temporaryName } from '../fs/atomic-write.js';
import { makeDirs } from '../fs/output-target.js';

/** A file a run writes and no other run may write at the same time. */
export interface LockRequest {
  /** The journal or state file, as the caller names it (relative paths are resolved against `cwd`). */
  path: string;
  /** What the file is, for the message: `journal`, `state file`. */
  role: string;
  /** How the caller gives a run another such file, for the hint (e.g. `--journal PATH`). */
  elsewhere?: string;
}

/** A lock left by a run that is no longer alive on this host, removed and taken by this run. */
export interface StaleLock {
  path: string;
  lockPath: string;
  holder: LockHolder;
}

/** The locks a run holds; `release()` removes them (the ones still this run's). */
export interface RunLocks {
  /** Locks of dead runs that were taken over: the caller may want to say so. */
  readonly takenOver: readonly StaleLock[];
  release(): Promise<void>;
}

/** `<file>.lock`, beside the file it protects. */
export function lockPathOf(path: string): string {
  const name = basename(path);
  // A name too long to take `.lock` is locked under a digest of it, in the same folder.
  if (Buffer.byteLength(name) + 5 <= NAME_MAX) return `${path}.lock`;
  return join(dirname(path), `.${createHash('sha256').update(name).digest('hex').slice(0, 32)}.lock`);
}

interface Held {
  lockPath: string;
  /** What this run wrote in it: a lock is removed only while it still says this. */
  text: string;
}

/**
 * Take the lock of each file, in order, or none: a lock file `<file>.lock` created atomically (complete when it
 * appears), holding `{"pid","host","startedAt"}`. When one already exists:
 * - its holder is on this host and its pid is not alive (a run killed with SIGKILL, a crash): the lock is stale,
 *   it is taken over, and listed in `takenOver`;
 * - otherwise (alive, on another host, or unreadable) a {@link RunLockedError} names the file, the holder and how
 *   to proceed, and the locks taken so far are released.
 *
 * A file that exists and is not a regular file (`/dev/null`, a pipe) is not locked: there is nothing to protect.
 * The locks are also removed when the process exits without `release()` (a `process.exit` on a third Ctrl-C);
 * only SIGKILL (or a crash of Node itself) leaves them, and those are stale by the rule above.
 */
export async function acquireRunLocks(requests: readonly LockRequest[], cwd = process.cwd()): Promise<RunLocks> {
  const me: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const held: Held[] = [];
  const takenOver: StaleLock[] = [];
  const onExit = (): void => {
    for (const lock of held) releaseSync(lock);
  };
  process.on('exit', onExit);
  const release = async (): Promise<void> => {
    process.off('exit', onExit);
    for (const lock of held.splice(0).reverse()) await releaseOne(lock);
  };
  try {
    for (const request of requests) {
      const taken = await acquireOne(request, resolve(cwd, request.path), me);
      if (taken === undefined) continue;
      held.push(taken.held);
      if (taken.stale !== undefined) takenOver.push(taken.stale);
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { takenOver, release };
}

/** Rounds of "it exists, but it is stale or just went away": past them the lock is taken as held. */
const ATTEMPTS = 4;

async function acquireOne(request: LockRequest, full: string, me: LockHolder): Promise<{ held: Held; stale?: StaleLock } | undefined> {
  const found = await stat(full).catch(() => undefined);
  if (found !== undefined && !found.isFile()) return undefined;
  const lockPath = lockPathOf(full);
  const text = `${JSON.stringify(me)}\n`;
  // Beside a journal or a state: a folder of the user's alone.
  await makeDirs(dirname(lockPath), { private: true });
  let stale: StaleLock | undefined;
  for (let attempt = 1; ; attempt++) {
    if (await createLock(lockPath, text)) return { held: { lockPath, text }, ...(stale === undefined ? {} : { stale }) };
    const current = await readLock(lockPath);
    // Released between our attempt and our look: try again.
    if (current === undefined && attempt < ATTEMPTS) continue;
    const holder = current?.holder;
    if (current !== undefined && holder !== undefined && attempt < ATTEMPTS && isStale(holder)) {
      if (await removeStale(lockPath, current.text)) stale = { path: request.path, lockPath, holder };
      continue;
    }
    throw refusal(request, lockPath, holder);
  }
}

/**
 * Create the lock file with its whole content, or return false when it exists. The content is written to a
 * temporary file first and hard-linked into place, so no reader ever sees a lock half written; where the file
 * system has no hard links, an exclusive create and a write instead.
 */
async function createLock(lockPath: string, text: string): Promise<boolean> {
  const temporary = temporaryName(lockPath, `${process.pid}-${randomBytes(4).toString('hex')}`);
  await writeExclusive(temporary, text);
  try {
    await link(temporary, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    try {
      await writeExclusive(lockPath, text);
      return true;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fallback;
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

async function writeExclusive(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The lock's text and holder (undefined when unreadable: a FIFO or a file past 64 KiB planted at its path reads as a
 * lock that does not say who holds it, found without waiting on the FIFO for ever); undefined when there is no lock
 * file any more.
 */
async function readLock(lockPath: string): Promise<{ text: string; holder: LockHolder | undefined } | undefined> {
  let text: string;
  try {
    text = await readSmallText(lockPath, MAX_LOCK_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof FifoError || error instanceof TooLargeError) return { text: '', holder: undefined };
    throw error;
  }
  return { text, holder: parseHolder(text) };
}

/** The most of a lock file read: one is a line of JSON. */
const MAX_LOCK_BYTES = 64 * 1024;

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Record<keyof LockHolder, unknown>> | null;
    if (value === null || typeof value !== 'object') return undefined;
    const { pid, host, startedAt } = value;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0 || typeof host !== 'string' || typeof startedAt !== 'string') return undefined;
    return { pid, host, startedAt };
  } catch {
    return undefined;
  }
}

/** A holder on this host whose process is gone. A holder on another host cannot be checked: it is never stale. */
function isStale(holder: LockHolder): boolean {
  return holder.host === hostname() && !isAlive(holder.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Remove a stale lock, unless another run took it over meanwhile. Two runs may find the same stale lock: each moves
 * the lock file aside under a name of its own (one rename wins per file) and checks that what it moved is the stale
 * lock it read; a run that moved a fresh lock of the other puts it back. Returns true when the stale lock was removed.
 */
async function removeStale(lockPath: string, staleText: string): Promise<boolean> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = await readSmallText(aside, MAX_LOCK_BYTES).catch(() => undefined);
  if (moved === staleText) {
    await unlink(aside).catch(() => undefined);
    return true;
  }
  await link(aside, lockPath).catch(() => rename(aside, lockPath));
  await unlink(aside).catch(() => undefined);
  return false;
}

async function releaseOne(lock: Held): Promise<void> {
  const text = await readSmallText(lock.lockPath, MAX_LOCK_BYTES).catch(() => undefined);
  if (text === lock.text) await unlink(lock.lockPath).catch(() => undefined);
}

function releaseSync(lock: Held): void {
  let fd: number | undefined;
  try {
    // Without waiting: a FIFO put in its place would hold the exit for ever.
    fd = openSync(lock.lockPath, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return;
    if (readFileSync(fd, 'utf8') === lock.text) unlinkSync(lock.lockPath);
  } catch {
    // gone already, or not ours to remove
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function refusal(request: LockRequest, lockPath: string, holder: LockHolder | undefined): RunLockedError {
  const other = request.elsewhere === undefined ? `give this run another ${request.role}` : `give this run its own ${request.role} with ${request.elsewhere}`;
  if (holder === undefined) {
    return new RunLockedError(
      `the ${request.role} ${request.path} is locked by ${lockPath}, which does not say which run holds it`,
      request.path,
      lockPath,
      undefined,
      `if no other run is using it, remove ${lockPath}; or ${other}; nothing was sent`,
    );
  }
  const where = holder.host === hostname() ? `pid ${holder.pid} on this host (${holder.host})` : `pid ${holder.pid} on host ${holder.host}`;
  const stale = holder.host === hostname() ? `if that process is not a listings run (a pid can be reused after a crash)` : `if that run is over (a lock on another host cannot be checked from here)`;
  return new RunLockedError(
    `the ${request.role} ${request.path} is in use by another run: ${where}, started ${holder.startedAt}${since(holder.startedAt)}`,
    request.path,
    lockPath,
    holder,
    `wait for that run to end, or ${other}; ${stale}, remove ${lockPath}. Nothing was sent`,
  );
}

function since(startedAt: string): string {
  const ms = Date.now() - Date.parse(startedAt);
  if (!Number.isFinite(ms) || ms < 0) return '';
  const s = Math.round(ms / 1000);
  if (s < 120) return ` (${s} s ago)`;
  if (s < 7200) return ` (${Math.round(s / 60)} min ago)`;
  return ` (${Math.round(s / 3600)} h ago)`;
}
