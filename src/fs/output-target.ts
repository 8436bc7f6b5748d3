import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { ConfigError } from '../errors.js';
import { openOnceRead, openPipeToWrite, PipeWaitError } from './named-pipe.js';

/** How an output may be written, besides as a regular file. */
export interface OutputRules {
  /**
   * The user's alone (a journal, a state, the config): files 0600 and folders made for it 0700, whatever the umask.
   * Otherwise (a report) the umask is kept, but never writable by others.
   */
  private?: boolean;
  /** A named pipe is written in place. False for a file the tool reads back (a state) or rewrites (JUnit). Default true. */
  pipe?: boolean;
  /** A character device (`/dev/null`) is written in place, never replaced. False for a file the tool rewrites. Default true. */
  device?: boolean;
}

/**
 * What is at an output's path, and so how it is written:
 * - `missing`: created;
 * - `file`: a regular file, at `path` (a symbolic link followed to it);
 * - `stream`: a named pipe or a character device, written in place: never removed, replaced or made anew.
 */
export type OutputTarget =
  | { kind: 'missing' | 'file'; path: string }
  /**
   * `linked`: `path` is the link itself, to a pipe with no name to resolve (/dev/stdout piped to another program is
   * /proc/self/fd/1 -> `pipe:[N]`), so it is opened through the link, and what was opened is checked to be a pipe.
   * `fifo`: a pipe (named, or through such a link), not a character device.
   */
  | { kind: 'stream'; path: string; linked?: true; fifo?: true };

/**
 * Why a folder on the way to `path` may not be passed through: a symbolic link owned by another user than this one
 * or root, in a folder anyone may write to (`/tmp`), where it may have been planted; a link an administrator made
 * in a folder of theirs (`/data -> /mnt/data`) is followed. Undefined when none is (folders not there yet are made
 * by this run).
 */
async function foreignLinkOnTheWay(path: string): Promise<string | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const folders: string[] = [];
  for (let folder = dirname(resolve(path)); folder !== dirname(folder); folder = dirname(folder)) folders.push(folder);
  for (const folder of folders.reverse()) {
    const found = await lstat(folder).catch(() => undefined);
    if (found === undefined) return undefined;
    if (!found.isSymbolicLink() || found.uid === uid || found.uid === 0) continue;
    const parent = await stat(dirname(folder)).catch(() => undefined);
    if (parent === undefined || (parent.mode & 0o002) !== 0) return `its folder ${folder} is a symbolic link owned by another user (uid ${found.uid}) in a folder anyone may write to, which is not followed`;
  }
  return undefined;
}

/** The file flags no output is opened without: never through a symbolic link at the last step. */
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Look at an output's path. Returns the target, or why it cannot be written (`it is a directory`, ...).
 *
 * A symbolic link at the path is followed, as most tools do (`--report /dev/stdout`, a report linked into a shared
 * folder), when it belongs to this user or to root. One owned by another user is refused: it may have been planted
 * in a shared folder to point a run at a file of its choosing (the kernel's protected_symlinks refuses the same).
 * So is a folder on the way that is such a link (`/tmp/reports -> a folder of its choosing`).
 */
export async function inspectOutput(path: string, rules: OutputRules = {}): Promise<OutputTarget | { refused: string }> {
  const plantedFolder = await foreignLinkOnTheWay(path);
  if (plantedFolder !== undefined) return { refused: plantedFolder };
  let tooLong = false;
  const link = await lstat(path).catch((error: NodeJS.ErrnoException) => void (tooLong = error.code === 'ENAMETOOLONG'));
  if (tooLong) return { refused: 'its name is longer than the file system allows (ENAMETOOLONG)' };
  if (link === undefined) return { kind: 'missing', path };
  let real = path;
  if (link.isSymbolicLink()) {
    const uid = process.getuid?.();
    if (uid !== undefined && link.uid !== uid && link.uid !== 0) return { refused: `it is a symbolic link owned by another user (uid ${link.uid}), which is not followed` };
    try {
      real = await realpath(path);
    } catch {
      const end = await stat(path).catch(() => undefined);
      if (end?.isFIFO() === true && rules.pipe !== false) return { kind: 'stream', path, linked: true, fifo: true };
      return { refused: 'it is a symbolic link to a file that does not exist' };
    }
  }
  const found = real === path ? link : await stat(real);
  if (found.isFile()) return { kind: 'file', path: real };
  if (found.isDirectory()) return { refused: 'it is a directory' };
  if (found.isFIFO()) return rules.pipe === false ? { refused: 'it is a named pipe, and this file is read back or rewritten: it needs a regular file' } : { kind: 'stream', path: real, fifo: true };
  if (found.isCharacterDevice()) return rules.device === false ? { refused: 'it is a device, and this file is rewritten: it needs a regular file' } : { kind: 'stream', path: real };
  return { refused: `it is a ${found.isSocket() ? 'socket' : 'block device'}, not a file` };
}

/**
 * Why `-` cannot name an output: most tools read it as standard output, and a file of that name would be made in
 * its place without a word. `./-` still names such a file.
 */
export function dashRefused(path: string): string | undefined {
  return path === '-' ? '"-" is not standard output here: name a file (./- for a file named "-")' : undefined;
}

/** The mode of a new file: 0600 for a private one; else what the umask gave, less write by others. */
export async function setFileMode(handle: FileHandle, rules: OutputRules): Promise<void> {
  if (rules.private === true) {
    await handle.chmod(0o600);
    return;
  }
  const { mode } = await handle.stat();
  if ((mode & 0o002) !== 0) await handle.chmod(mode & 0o775);
}

/**
 * Open a pipe through the link that names it (see OutputTarget `linked`): without creating or truncating anything,
 * and refused unless what was opened is a pipe (the link may have been changed since it was looked at).
 */
export async function openLinkedPipe(path: string, access: number, role: string): Promise<FileHandle> {
  const handle = await open(path, access);
  if ((await handle.stat()).isFIFO()) return handle;
  await handle.close();
  throw new ConfigError(`cannot write the ${role} ${path}: it changed while it was being opened`);
}

/**
 * Make the missing folders of `dir`, one level at a time (a recursive mkdir can spin for ever where a folder cannot
 * be made, under /proc say): 0700 for private outputs, else the umask's mode less write by others. Folders that
 * exist are left as they are. Throws the first error, with `path` set to the folder that could not be made.
 */
export async function makeDirs(dir: string, rules: OutputRules = {}): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; (await stat(at).catch(() => undefined)) === undefined; at = dirname(at)) {
    if (dirname(at) === at) break;
    missing.unshift(at);
  }
  for (const at of missing) {
    try {
      await mkdir(at, rules.private === true ? 0o700 : 0o777);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    // The mode given to mkdir is narrowed by the umask, never widened: set it as it must be.
    if (rules.private === true) await chmod(at, 0o700);
    else {
      const { mode } = await stat(at);
      if ((mode & 0o002) !== 0) await chmod(at, mode & 0o775);
    }
  }
}

/** How {@link openOutput} opens a file that is written as the run goes. */
export interface OpenOutputOptions extends OutputRules {
  /** What the file is, for the message: `journal`, `recording`. */
  role: string;
  /** Start the file over (truncated in place) instead of appending to it. */
  truncate?: boolean;
  /** Open it for reading too (the journal reads its last byte). */
  read?: boolean;
}

/**
 * Open a file that is written as the run goes, in place (a journal, a recording, dead letters, `--out`): appended
 * to, or started over with `truncate`. Missing folders and the file are made with the modes of `rules`; a regular
 * file already there gets them too; a pipe or a device is written as it is, never replaced; a symbolic link is
 * followed as {@link inspectOutput} says. What cannot be written this way is a ConfigError naming the file.
 */
export async function openOutput(path: string, options: OpenOutputOptions): Promise<FileHandle> {
  return openTarget(path, await writableTarget(path, options), options);
}

/** What is at an output's path, or a ConfigError naming it when it cannot be written. */
async function writableTarget(path: string, options: OpenOutputOptions): Promise<OutputTarget> {
  const dash = dashRefused(path);
  if (dash !== undefined) throw new ConfigError(`cannot write the ${options.role} ${path}: ${dash}`);
  const target = await inspectOutput(path, options);
  if ('refused' in target) throw new ConfigError(`cannot write the ${options.role} ${path}: ${target.refused}`);
  return target;
}

/**
 * {@link openOutput} as a stream of text, for an output written as the run goes (a recording): a pipe is opened
 * once a program reads it, within a bounded wait (a plain open would wait for ever), else a ConfigError naming
 * it, and written without blocking (a reader that stalls leaves its lines in the stream's `writableLength`).
 */
export async function openOutputStream(path: string, options: OpenOutputOptions): Promise<Writable> {
  const target = await writableTarget(path, options);
  // A pipe through a link too (/dev/stdout piped): written through the event loop, never a thread blocked on it.
  if (target.kind !== 'stream' || target.fifo !== true) return (await openTarget(path, target, options)).createWriteStream({ encoding: 'utf8' });
  try {
    return await openPipeToWrite(target.path);
  } catch (error) {
    throw new ConfigError(`cannot write the ${options.role} ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * `open()` of a target; a named pipe once a program reads it, within a bounded wait (a plain open waits for ever, in
 * a thread of the pool), else a ConfigError `cannot: it is a named pipe that no program opened to read within 10 s`.
 */
export async function openOnceReadOrRefuse<T>(target: OutputTarget, open: () => Promise<T>, cannot: string): Promise<T> {
  if (target.kind !== 'stream' || target.fifo !== true) return open();
  try {
    return await openOnceRead(target.path, open);
  } catch (error) {
    if (error instanceof PipeWaitError) throw new ConfigError(`${cannot}: ${error.message}`, { cause: error });
    throw error;
  }
}

async function openTarget(path: string, target: OutputTarget, options: OpenOutputOptions): Promise<FileHandle> {
  if (target.kind === 'missing') await makeDirs(dirname(path), options);
  const access = options.read === true ? constants.O_RDWR : constants.O_WRONLY;
  if (target.kind === 'stream' && target.linked === true) return openLinkedPipe(path, access, options.role);
  const flags = access | constants.O_CREAT | NOFOLLOW | (options.truncate === true ? constants.O_TRUNC : constants.O_APPEND);
  // The journal's read-write open of a pipe never waits, but its writes would, once the pipe is full.
  const handle = await openOnceReadOrRefuse(target, () => open(target.path, flags, options.private === true ? 0o600 : 0o666), `cannot write the ${options.role} ${path}`);
  try {
    // Only a regular file gets the mode: a device (/dev/full) is the system's.
    if ((await handle.stat()).isFile()) await setFileMode(handle, options);
  } catch (error) {
    // A file of another user's that this one may write, but not chmod: written as it is.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') {
      await handle.close();
      throw error;
    }
  }
  return handle;
}
