import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Utf16Decoder, utf16Of } from '../../../src/catalog/formats/utf16.js';
import { openRecords } from '../../../src/catalog/read-records.js';
import { isRecordError, type RecordItem } from '../../../src/catalog/types.js';
import { tempDir } from '../../helpers/tmp.js';

function be(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

async function decoded(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be', chunkSize: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks, { objectMode: false }).pipe(new Utf16Decoder(encoding))) out.push(chunk as Buffer);
  return Buffer.concat(out);
}

describe('utf16Of', () => {
  const header = 'sku,title,marketplace\nA-1,Tasse 😎,EBAY_US\n';
  it.each([
    ['LE with a byte order mark', Buffer.from(`\uFEFF${header}`, 'utf16le'), 'utf-16le'],
    ['BE with a byte order mark', be(`\uFEFF${header}`), 'utf-16be'],
    // It read as columns "s\u0000k\u0000u\u0000" with a --map hint that could not help.
    ['LE without one', Buffer.from(header, 'utf16le'), 'utf-16le'],
    ['BE without one', be(header), 'utf-16be'],
    ['LE text of Japanese values after an ASCII header', Buffer.from('sku,title\nA,日本語のタイトル日本語のタイトル\n', 'utf16le'), 'utf-16le'],
  ])('tells %s', (_name, head, encoding) => {
    expect(utf16Of(head)).toBe(encoding);
  });

  it.each([
    ['UTF-8 text', Buffer.from(header)],
    ['UTF-8 text with a NUL in a value', Buffer.from('sku,title\nAB\u0000CD,T\n')],
    ['a zip file (xlsx)', Buffer.from('PK\u0003\u0004\u0014\u0000\u0006\u0000\u0008\u0000\u0000\u0000!\u0000b\u00ee\u009dh^\u0001\u0000\u0000\u0090\u0004\u0000\u0000\u0013\u0000\u0008\u0002[Content_Types].xml', 'latin1')],
    ['too short to tell', Buffer.from('a\u0000', 'latin1')],
  ])('leaves %s alone', (_name, head) => {
    expect(utf16Of(head)).toBeUndefined();
  });
});

describe('Utf16Decoder', () => {
  const text = 'sku,title\r\nA-1,"Tasse ""Ü"" 😎"\n';
  it('decodes either byte order to UTF-8, dropping the mark, whatever the chunks (a surrogate pair split among them)', async () => {
    for (const chunkSize of [1, 2, 3, 5, 64]) {
      expect((await decoded(Buffer.from(`\uFEFF${text}`, 'utf16le'), 'utf-16le', chunkSize)).toString('utf8')).toBe(text);
      expect((await decoded(be(`\uFEFF${text}`), 'utf-16be', chunkSize)).toString('utf8')).toBe(text);
      expect((await decoded(Buffer.from(text, 'utf16le'), 'utf-16le', chunkSize)).toString('utf8')).toBe(text);
    }
  });

  it('turns what is not UTF-16 text (a lone surrogate, an odd last byte) into bytes that are not UTF-8', async () => {
    const lone = Buffer.concat([Buffer.from('a', 'utf16le'), Buffer.from([0x00, 0xd8]), Buffer.from('b', 'utf16le')]);
    expect([...(await decoded(lone, 'utf-16le', 1))]).toEqual([0x61, 0xff, 0x62]);
    expect([...(await decoded(Buffer.from([0x61, 0x00, 0x62]), 'utf-16le', 2))]).toEqual([0x61, 0xff]);
  });

  it('a row of a UTF-16 file holding a lone surrogate is told as not UTF-16 text, not as Latin-1 saved as UTF-8', async () => {
    const path = join(tempDir(), 'c.csv');
    const good = Buffer.from('\uFEFFsku,title\nA-1,Tasse\nB-2,', 'utf16le');
    writeFileSync(path, Buffer.concat([good, Buffer.from([0x00, 0xd8]), Buffer.from('x\nC-3,Ok\n', 'utf16le')]));
    const items: RecordItem[] = [];
    for await (const item of (await openRecords(path)).records) items.push(item);
    expect(items).toHaveLength(3);
    const errors = items.filter(isRecordError);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.location).toMatchObject({ source: path, line: 3 });
    expect(errors[0]!.error).toMatch(/is not valid UTF-16 text/);
    expect(errors[0]!.error).not.toMatch(/UTF-8|Latin-1/);
  });
});
