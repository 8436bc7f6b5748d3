import type { Readable } from 'node:stream';
import type * as Zlib from 'node:zlib';
import { heldOutput } from './held-output.js';
import { PulledBytes } from './pulled-bytes.js';
import { GZIP_TRAILING_DATA } from './read-failure.js';

/** A gzip file's name or comment is a few dozen bytes: one longer than this is taken for damage, not held. */
const MAX_HEADER_TEXT = 64 * 1024;

const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const RESERVED = 0xe0;

/** An error worded and coded as zlib's own, so that it is told as a cut or damaged file like theirs. */
function zlibError(code: 'Z_BUF_ERROR' | 'Z_DATA_ERROR', message: string): Error {
  return Object.assign(new Error(message), { code });
}

const cutShort = (): Error => zlibError('Z_BUF_ERROR', 'unexpected end of file');

async function need(bytes: PulledBytes, size: number): Promise<Buffer> {
  if (!(await bytes.fill(size))) throw cutShort();
  return bytes.take(size);
}

/** Reads a zero-terminated name or comment of the header. */
async function skipText(bytes: PulledBytes): Promise<void> {
  for (let read = 0; read <= MAX_HEADER_TEXT; read++) {
    if ((await need(bytes, 1))[0] === 0) return;
  }
  throw zlibError('Z_DATA_ERROR', 'the header\'s name or comment does not end');
}

/** Reads a member's header (RFC 1952, 2.3), the magic bytes included. */
async function readHeader(bytes: PulledBytes): Promise<void> {
  const fixed = await need(bytes, 10);
  if (fixed[0] !== 0x1f || fixed[1] !== 0x8b) throw zlibError('Z_DATA_ERROR', 'incorrect header check');
  if (fixed[2] !== 8) throw zlibError('Z_DATA_ERROR', 'unknown compression method');
  const flags = fixed[3]!;
  if ((flags & RESERVED) !== 0) throw zlibError('Z_DATA_ERROR', 'unknown header flags set');
  if ((flags & FEXTRA) !== 0) await need(bytes, (await need(bytes, 2)).readUInt16LE(0));
  if ((flags & FNAME) !== 0) await skipText(bytes);
  if ((flags & FCOMMENT) !== 0) await skipText(bytes);
  if ((flags & FHCRC) !== 0) await need(bytes, 2);
}

/**
 * The deflate data of one member, inflated; the input it did not use is given back to `bytes`. Input is written one
 * chunk at a time, each once the last is taken: zlib stops at the end of the deflate data, and what it took of the
 * last chunk (`bytesWritten`) tells where the member's trailer starts.
 */
async function* inflateMember(bytes: PulledBytes, zlib: typeof Zlib): AsyncGenerator<Buffer> {
  const inflate = zlib.createInflateRaw();
  let written = 0;
  let last: Buffer | undefined;
  const pump = (async (): Promise<void> => {
    try {
      for (;;) {
        const chunk = await bytes.next();
        if (chunk === undefined) {
          inflate.end();
          return;
        }
        last = chunk;
        written += chunk.length;
        await new Promise<void>((resolve, reject) => inflate.write(chunk, (error) => (error ? reject(error) : resolve())));
        if (inflate.bytesWritten < written) return;
      }
    } catch (error) {
      // The input failed (or zlib did, which its reader is told): the reader gets the error after the data before it.
      inflate.destroy(error as Error);
    }
  })();
  yield* heldOutput(inflate);
  await pump;
  const unused = written - inflate.bytesWritten;
  if (unused > 0) bytes.unshift(last!.subarray(last!.length - unused));
}

/**
 * gzip bytes decompressed, member by member (a file may join several), each checked against its trailer's CRC-32
 * and length. What follows the last member must be nothing or zero bytes (padding): other bytes fail the reading,
 * after every byte decompressed before them, with an error (`code` GZIP_TRAILING_DATA) saying at which byte of the
 * gzip data they start. (node:zlib's gunzip fails there too, but drops the last output it made before, so the
 * rows at the end of the file were never read, and called the file damaged.)
 */
export async function* gunzipped(input: Readable, zlib: typeof Zlib): AsyncGenerator<Buffer> {
  const bytes = new PulledBytes(input);
  try {
    for (let member = 0; ; member++) {
      const start = bytes.offset;
      if (member > 0) {
        if (!(await bytes.fill(1))) return;
        const next = (await bytes.fill(2)) ? bytes.peek(2) : undefined;
        if (next === undefined || next[0] !== 0x1f || next[1] !== 0x8b) {
          if (await bytes.onlyZerosLeft()) return;
          throw Object.assign(new Error(`the gzip data ends at byte ${start.toLocaleString('en-US')} of the file, and bytes that are not gzip data follow it (a file joined to it, or damage)`), { code: GZIP_TRAILING_DATA, offset: start });
        }
      }
      await readHeader(bytes);
      let crc = 0;
      let size = 0;
      for await (const chunk of inflateMember(bytes, zlib)) {
        crc = zlib.crc32(chunk, crc);
        size = (size + chunk.length) >>> 0;
        yield chunk;
      }
      const trailer = await need(bytes, 8);
      if (trailer.readUInt32LE(0) !== crc) throw zlibError('Z_DATA_ERROR', 'incorrect data check');
      if (trailer.readUInt32LE(4) !== size) throw zlibError('Z_DATA_ERROR', 'incorrect length check');
    }
  } finally {
    await bytes.close();
  }
}
