import { open, opendir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { didYouMean } from '../../did-you-mean.js';
import { SourceError } from '../../errors.js';
import { metered } from './meter-stream.js';
import { schemeOf, type SourceKind } from './source-kind.js';
import { Meter, type OpenedSource } from './types.js';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
};

/** Entries of a directory looked at for a near name: a directory of millions is not read through for a hint. */
const NEAR_NAMES_READ = 2_000;

/** The path of a file beside `path` whose name is a likely typo of its name (case aside), if one is found. */
async function nearName(path: string): Promise<string | undefined> {
  const wanted = basename(path);
  const byLower = new Map<string, string>();
  try {
    const dir = await opendir(dirname(path), { bufferSize: 256 });
    for await (const entry of dir) {
      if (entry.name !== wanted) byLower.set(entry.name.toLowerCase(), entry.name);
      if (byLower.size >= NEAR_NAMES_READ) break;
    }
  } catch {
    return undefined;
  }
  const guess = didYouMean(wanted.toLowerCase(), byLower.keys());
  const name = guess === undefined ? undefined : byLower.get(guess);
  return name === undefined ? undefined : dirname(path) === '.' && !path.startsWith('.') ? name : join(dirname(path), name);
}

/** Opens a local file now (a missing or unreadable file throws SourceError naming it); its size is the total. */
export async function openFile(path: string, signal?: AbortSignal): Promise<OpenedSource> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const near = code === 'ENOENT' ? await nearName(path) : undefined;
    throw new SourceError({ source: path }, REASONS[code] ?? (error as Error).message, { cause: error, ...(near === undefined ? {} : { hint: `did you mean ${near}?` }) });
  }
  let size: number;
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new SourceError({ source: path }, REASONS.EISDIR!);
    size = stat.isFile() ? stat.size : Number.NaN;
  } catch (error) {
    await handle.close();
    if (error instanceof SourceError) throw error;
    throw new SourceError({ source: path }, (error as Error).message, { cause: error });
  }
  const meter = new Meter(Number.isNaN(size) ? undefined : size);
  const stream = metered(handle.createReadStream({ highWaterMark: 64 * 1024 }), meter, signal);
  return { first: { name: path, path, stream }, meter };
}

/** A local file, named by a path (anything without a scheme, so `-` must be taken first) or a `file://` URL. */
export const fileSource: SourceKind = {
  name: 'file',
  forms: 'a path, file://…',
  match: (source) => {
    const scheme = schemeOf(source);
    return scheme === undefined || scheme === 'file';
  },
  open: async (source, options) => openFile(schemeOf(source) === 'file' ? fileURLToPath(source) : source, options.signal),
};
