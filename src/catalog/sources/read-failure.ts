import { ListingsError, SourceError } from '../../errors.js';

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * The error to throw when reading a source fails part-way (a reset connection, damaged gzip data, a file that went
 * away): typed errors and aborts pass as they are, anything else becomes a SourceError naming the source.
 */
export function readFailure(error: unknown, source: string): Error {
  if (error instanceof ListingsError || isAbort(error)) return error as Error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new SourceError({ source }, `the compressed data is damaged (${message})`, { cause: error });
  }
  return new SourceError({ source }, `reading failed: ${message}`, { cause: error });
}
