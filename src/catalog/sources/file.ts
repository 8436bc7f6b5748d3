import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
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

/** Opens a local file now (a missing or unreadable file throws SourceError naming it); its size is the total. */
export async function openFile(path: string, signal?: AbortSignal): Promise<OpenedSource> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    throw new SourceError({ source: path }, REASONS[code] ?? (error as Error).message, { cause: error });
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
