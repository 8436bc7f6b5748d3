import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/**
 * An answer's body as sent, its content codings (RFC 9110 §8.4) taken off: the client asks for none
 * (`Accept-Encoding: identity`), but a server or a proxy in front of it may compress anyway. gzip, deflate and br are
 * read, each step bounded to `maxBytes` of output, so a small body that decompresses to gigabytes (a "zip bomb") is
 * refused once it passes the bound, never held whole.
 */
export type Decoded = { body: Buffer } | { tooLarge: true } | { unreadable: string };

/** The value of the `content-encoding` header among undici's raw headers (name, value, name, value...), if any. */
export function contentEncodingOf(rawHeaders: readonly Buffer[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // Most names are not 16 bytes long: one comparison each.
    if (name.length !== 16 || name.toString('latin1').toLowerCase() !== 'content-encoding') continue;
    const value = rawHeaders[i + 1]!.toString('latin1');
    found = found === undefined ? value : `${found}, ${value}`;
  }
  return found;
}

/** The codings a `content-encoding` value names, in the order applied, `identity` (no coding) left out. */
export function codingsOf(encoding: string): string[] {
  return encoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** Take off `codings` (in the order applied, as codingsOf gives them: so taken off in reverse). */
export function decodeContent(body: Buffer, codings: readonly string[], maxBytes: number): Decoded {
  let out = body;
  for (const coding of [...codings].reverse()) {
    if (out.length === 0) break;
    const options = { maxOutputLength: maxBytes + 1, finishFlush: constants.Z_SYNC_FLUSH };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') out = gunzipSync(out, options);
      else if (coding === 'deflate') out = inflateDeflate(out, options);
      else if (coding === 'br') out = brotliDecompressSync(out, { maxOutputLength: maxBytes + 1, finishFlush: constants.BROTLI_OPERATION_FLUSH });
      else return { unreadable: `it is encoded as ${JSON.stringify(coding).slice(0, 40)}, which this client does not read` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { tooLarge: true };
      return { unreadable: `its ${coding} encoding is broken (${(error as Error).message})` };
    }
    if (out.length > maxBytes) return { tooLarge: true };
  }
  return { body: out };
}

/** `deflate` is meant to be zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send raw deflate: both are read. */
function inflateDeflate(body: Buffer, options: { maxOutputLength: number; finishFlush: number }): Buffer {
  try {
    return inflateSync(body, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
    return inflateRawSync(body, options);
  }
}
