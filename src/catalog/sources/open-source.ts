import { fileURLToPath } from 'node:url';
import { UsageError } from '../../errors.js';
import type { CatalogOptions } from '../types.js';
import { openFile } from './file.js';
import { parseSourceHeaders } from './headers.js';
import { openHttp } from './http.js';
import { openS3 } from './s3.js';
import { openStdin } from './stdin.js';
import type { OpenedSource } from './types.js';

/**
 * Opens a source by its name: `-` is stdin, http(s):// a URL, s3:// an S3 object or prefix, file:// or anything
 * else a local path. The AWS SDK is imported only on the s3:// path.
 */
export async function openSource(source: string, options: CatalogOptions): Promise<OpenedSource> {
  const signal = options.signal;
  if (source === '-') return openStdin(process.stdin, signal);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source)?.[1]?.toLowerCase();
  if (scheme === undefined) return openFile(source, signal);
  if (scheme === 'http' || scheme === 'https') {
    if (!URL.canParse(source)) throw new UsageError(`${source} is not a valid URL`);
    return openHttp(source, parseSourceHeaders(options.sourceHeaders), signal);
  }
  if (scheme === 's3') {
    return openS3(source, { ...(options.s3Endpoint === undefined ? {} : { s3Endpoint: options.s3Endpoint }), ...(signal === undefined ? {} : { signal }) });
  }
  if (scheme === 'file') return openFile(fileURLToPath(source), signal);
  throw new UsageError(`cannot read ${scheme}:// sources; use a path, -, http(s)://, or s3://`);
}
