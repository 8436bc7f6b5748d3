import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codingsOf, contentEncodingOf, decodeContent } from '../../../src/client/content-coding.js';

const raw = (...pairs: string[]): Buffer[] => pairs.map((text) => Buffer.from(text, 'latin1'));

describe('content codings of an answer', () => {
  it('finds Content-Encoding among raw headers in any case, joining repeated ones', () => {
    expect(contentEncodingOf(raw('Content-Type', 'application/json', 'Content-Length', '3'))).toBeUndefined();
    expect(contentEncodingOf(raw('CONTENT-ENCODING', 'gzip'))).toBe('gzip');
    expect(contentEncodingOf(raw('content-encoding', 'gzip', 'x', 'y', 'Content-Encoding', 'br'))).toBe('gzip, br');
  });

  it('takes codings off in reverse order, identity aside; stops at the bound rather than holding a bomb whole', () => {
    const body = Buffer.from('{"sku":"A"}');
    expect(decodeContent(gzipSync(gzipSync(body)), codingsOf('gzip, identity, gzip'), 100)).toEqual({ body });
    expect(decodeContent(body, codingsOf(' identity '), 100)).toEqual({ body });
    expect(decodeContent(gzipSync(Buffer.alloc(10_000)), ['gzip'], 9_999)).toEqual({ tooLarge: true });
    expect(decodeContent(gzipSync(Buffer.alloc(10_000)), ['gzip'], 10_000)).toEqual({ body: Buffer.alloc(10_000) });
    expect(decodeContent(body, ['compress'], 100)).toEqual({ unreadable: 'it is encoded as "compress", which this client does not read' });
  });

  it('reads a gzip body cut short as far as it goes, and calls a body that is not gzip broken', () => {
    const whole = gzipSync(Buffer.from('x'.repeat(1000)));
    const cut = decodeContent(whole.subarray(0, whole.length - 8), ['gzip'], 2000);
    expect('body' in cut && cut.body.toString()).toBe('x'.repeat(1000));
    expect(decodeContent(Buffer.from('plain'), ['gzip'], 100)).toMatchObject({ unreadable: expect.stringMatching(/^its gzip encoding is broken \(/) as unknown });
  });
});
