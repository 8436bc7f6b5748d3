import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { pathToFileURL } from 'node:url';
import { openSource, SOURCE_KINDS } from '../../../src/catalog/sources/open-source.js';
import { CATALOG_SOURCES_HELP } from '../../../src/catalog/sources/source-kind.js';
import { UsageError } from '../../../src/errors.js';
import { wordError } from '../../../src/cli/report-error.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'listings-source-kinds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The name of the first kind that takes the source, as openSource picks it. */
function kindOf(source: string): string | undefined {
  return SOURCE_KINDS.find((kind) => kind.match(source))?.name;
}

async function refusal(source: string): Promise<UsageError> {
  const error: unknown = await openSource(source, {}).then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('source kinds', () => {
  it("are all named by the catalog argument's help (a file as 'a file'; kafka is stream's, not a catalog's)", () => {
    const named = SOURCE_KINDS.filter((kind) => kind.name !== 'file' && kind.name !== 'kafka').map((kind) => kind.forms.replace('…', ''));
    expect(named.length).toBeGreaterThan(2);
    for (const form of named) expect(CATALOG_SOURCES_HELP, form).toContain(form);
    expect(CATALOG_SOURCES_HELP).toContain('a file');
  });

  it.each([
    ['-', 'stdin'],
    ['a.csv', 'file'],
    ['./a.csv', 'file'],
    ['/abs/a.csv', 'file'],
    ['file:///tmp/a.csv', 'file'],
    ['FILE:///tmp/a.csv', 'file'],
    ['http://example.com/a.csv', 'http'],
    ['HTTPS://example.com/a.csv', 'http'],
    ['s3://b/k', 's3'],
    ['kafka://h:9092/t', 'kafka'],
    ['ftp://x/y', undefined],
  ])('%s is taken by the %s kind', (source, kind) => {
    expect(kindOf(source)).toBe(kind);
  });

  it('refuses a Kafka topic, pointing at listings stream', async () => {
    const error = await refusal('kafka://h:9092/t');
    expect(error.message).toBe('kafka://h:9092/t is a Kafka topic: a stream of changes, not a catalog file');
    expect(error.hint).toBe('publish from it with `streamListings`');
    expect(wordError(error).hint).toBe('publish from it with `listings stream kafka://…/TOPIC --group NAME`');
  });

  it('refuses a scheme no kind takes, listing the forms of every kind', async () => {
    const error = await refusal('ftp://x/y');
    expect(error.message).toBe('cannot read ftp:// sources; use -, http(s)://…, s3://…, a path, file://…, or kafka://…/TOPIC (with listings stream)');
    for (const kind of SOURCE_KINDS) expect(error.message).toContain(kind.forms);
  });

  it('opens a local file, by path and by file:// URL, giving its bytes', async () => {
    const path = join(dir, 'a.csv');
    await writeFile(path, 'sku,title\nA,Alpha\n');
    for (const source of [path, pathToFileURL(path).href]) {
      const opened = await openSource(source, {});
      expect(opened.first).toMatchObject({ name: path, path });
      expect(await text(opened.first.stream)).toBe('sku,title\nA,Alpha\n');
      expect(opened.meter).toMatchObject({ bytesRead: 18, totalBytes: 18 });
    }
  });
});
