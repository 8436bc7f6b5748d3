import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { JournalWriter, defaultJournalPath as defaultJournalPathFor, publishedKey, readPublished as readJournal } from '../../../src/publish/journal.js';
import { runTarget, sandboxTarget } from '../../../src/publish/run-target.js';

const HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4';
const target = runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-1', marketplace: 'EBAY_US', shape: 'flat' });
const header = { source: 'catalog.csv', startedAt: '2025-06-01T12:00:00.000Z', target };
const readPublished = async (at: string) => (await readJournal(at, target)).published;
let dir: string;
let path: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-'));
  path = join(dir, 'nested', '.listings', 'journal.ndjson');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = async () => (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');

describe('JournalWriter and readPublished', () => {
  it('writes a header and one line per finished row; reads back the published ones', async () => {
    const journal = await JournalWriter.open(path, header);
    journal.record({ index: 0, sku: 'A', hash: HASH, outcome: 'published', status: 201 });
    journal.record({ index: 1, sku: 'B', hash: HASH, outcome: 'failed', status: 500 });
    journal.record({ index: 2, sku: 'C', hash: HASH, outcome: 'invalid' });
    journal.record({ index: 3, sku: 'D "quoted"\n', hash: 'ff', outcome: 'published' });
    await journal.close();
    expect(await lines()).toEqual([
      JSON.stringify({ journal: 1, source: 'catalog.csv', startedAt: '2025-06-01T12:00:00.000Z', target }),
      `{"index":0,"sku":"A","hash":"${HASH}","outcome":"published","status":201}`,
      `{"index":1,"sku":"B","hash":"${HASH}","outcome":"failed","status":500}`,
      `{"index":2,"sku":"C","hash":"${HASH}","outcome":"invalid"}`,
      '{"index":3,"sku":"D \\"quoted\\"\\n","hash":"ff","outcome":"published"}',
    ]);
    expect(await readPublished(path)).toEqual(new Set([publishedKey('A', HASH), publishedKey('D "quoted"\n', 'ff')]));
  });

  it('writes only the journal fields, whatever the caller passes', async () => {
    const journal = await JournalWriter.open(path, header);
    const entry = { index: 0, sku: 'A', hash: HASH, outcome: 'published', apiKey: 'sk_live_secret', body: '{}' };
    journal.record(entry);
    await journal.close();
    expect(await readFile(path, 'utf8')).not.toMatch(/sk_live_secret|apiKey|body/);
  });

  it('appends the runs of the same source to one file', async () => {
    const first = await JournalWriter.open(path, header);
    first.record({ index: 0, sku: 'A', hash: HASH, outcome: 'published' });
    await first.close();
    const second = await JournalWriter.open(path, { ...header, startedAt: '2025-06-02T00:00:00.000Z' });
    second.record({ index: 1, sku: 'B', hash: HASH, outcome: 'published' });
    await second.close();
    expect(await lines()).toHaveLength(4);
    expect(await readPublished(path)).toEqual(new Set([publishedKey('A', HASH), publishedKey('B', HASH)]));
  });

  it('the same SKU with other content is not "already published"', async () => {
    const journal = await JournalWriter.open(path, header);
    journal.record({ index: 0, sku: 'A', hash: 'old', outcome: 'published' });
    await journal.close();
    const published = await readPublished(path);
    expect(published.has(publishedKey('A', 'old'))).toBe(true);
    expect(published.has(publishedKey('A', 'new'))).toBe(false);
  });

  it('a missing file is an empty set', async () => {
    expect(await readPublished(join(dir, 'nope.ndjson'))).toEqual(new Set());
  });

  it('tolerates a torn last line (kill -9) and the next run starts on a fresh line', async () => {
    const journal = await JournalWriter.open(path, header);
    journal.record({ index: 0, sku: 'A', hash: HASH, outcome: 'published' });
    await journal.close();
    await writeFile(path, `${await readFile(path, 'utf8')}{"index":1,"sku":"B","hash":"${HASH}","outcome":"publi`);
    expect(await readPublished(path)).toEqual(new Set([publishedKey('A', HASH)]));

    const next = await JournalWriter.open(path, header);
    next.record({ index: 1, sku: 'B', hash: HASH, outcome: 'published' });
    await next.close();
    expect(await readPublished(path)).toEqual(new Set([publishedKey('A', HASH), publishedKey('B', HASH)]));
    expect((await lines())[3]).toBe(JSON.stringify({ journal: 1, source: 'catalog.csv', startedAt: '2025-06-01T12:00:00.000Z', target }));
  });

  it('ignores garbage lines and lines of the wrong shape', async () => {
    const garbage = join(dir, 'garbage.ndjson');
    await writeFile(
      garbage,
      [
        JSON.stringify({ journal: 1, source: 'catalog.csv', startedAt: header.startedAt, target }),
        'not json',
        '42',
        'null',
        '{"sku":1,"hash":"h","outcome":"published"}',
        '{"sku":"A","outcome":"published"}',
        '{"sku":"B","hash":"h","outcome":"published_later"}',
        '{"sku":"C","hash":"h","outcome":"published"}',
      ].join('\n'),
    );
    expect(await readPublished(garbage)).toEqual(new Set([publishedKey('C', 'h')]));
  });

  it('flushes as it goes: lines reach the file without close', async () => {
    const journal = await JournalWriter.open(path, header);
    for (let i = 0; i < 10; i++) journal.record({ index: i, sku: `S${i}`, hash: HASH, outcome: 'published' });
    const deadline = Date.now() + 2000;
    while ((await readFile(path, 'utf8').catch(() => '')).split('\n').length < 12 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await readPublished(path)).size).toBe(10);
    await journal.close();
  });

  it('keeps up with 30k rows/s many times over (100k rows)', async () => {
    const journal = await JournalWriter.open(path, header);
    const start = performance.now();
    for (let i = 0; i < 100_000; i++) {
      journal.record({ index: i, sku: `SKU-${i}`, hash: HASH, outcome: 'published', status: 201 });
      if (i % 500 === 0) await new Promise(setImmediate); // let the writes go out as a real run would
    }
    await journal.close();
    const ms = performance.now() - start;
    expect((await readPublished(path)).size).toBe(100_000);
    // typically ~100 ms here; 100k rows at 30k rows/s is 3.3 s of run time
    expect(ms).toBeLessThan(1500);
  });

  it('rejects a record after close', async () => {
    const journal = await JournalWriter.open(path, header);
    await journal.close();
    expect(() => journal.record({ index: 0, sku: 'A', hash: HASH, outcome: 'published' })).toThrow(/closed/);
  });

  it('fails to open where it cannot write', async () => {
    await writeFile(join(dir, 'file'), '');
    await expect(JournalWriter.open(join(dir, 'file', 'journal.ndjson'), header)).rejects.toThrow();
  });
});

describe('readPublished and targets', () => {
  it('takes only the rows of runs against the same target, and counts the others', async () => {
    const sandbox = sandboxTarget('EBAY_US', 'flat');
    const tryOut = await JournalWriter.open(path, { ...header, target: sandbox });
    tryOut.record({ index: 0, sku: 'A', hash: HASH, outcome: 'published' });
    await tryOut.close();
    const real = await JournalWriter.open(path, header);
    real.record({ index: 1, sku: 'B', hash: HASH, outcome: 'published' });
    await real.close();
    const read = await readJournal(path, target);
    expect(read).toEqual({ published: new Set([publishedKey('B', HASH)]), found: true, foreignRuns: 1, foreignTarget: sandbox });
    expect((await readJournal(path, sandbox)).published).toEqual(new Set([publishedKey('A', HASH)]));
  });

  it('a journal with no target (an older version) gives nothing; a missing one says it was not found', async () => {
    await writeFile(join(dir, 'old.ndjson'), `{"journal":1,"source":"c.csv","startedAt":"x"}\n{"index":0,"sku":"A","hash":"${HASH}","outcome":"published"}\n`);
    expect(await readJournal(join(dir, 'old.ndjson'), target)).toMatchObject({ published: new Set(), found: true, foreignRuns: 1 });
    expect(await readJournal(join(dir, 'none.ndjson'), target)).toMatchObject({ published: new Set(), found: false, foreignRuns: 0 });
  });
});

describe('defaultJournalPath', () => {
  const cwd = resolve('/work/project');
  const defaultJournalPath = (source: string, at: string) => defaultJournalPathFor(source, at, target);
  it('is under .listings in the working directory, named by short hashes of the resolved source and the target', () => {
    const p = defaultJournalPath('catalog.csv', cwd);
    expect(p).toMatch(/[/\\]work[/\\]project[/\\]\.listings[/\\]journal-[0-9a-f]{12}-[0-9a-f]{8}\.ndjson$/);
  });

  it('differs by target, and holds nothing of the key', () => {
    const other = runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-2', marketplace: 'EBAY_US', shape: 'flat' });
    expect(defaultJournalPathFor('catalog.csv', cwd, other)).not.toBe(defaultJournalPath('catalog.csv', cwd));
    expect(defaultJournalPathFor('catalog.csv', cwd, sandboxTarget('EBAY_US', 'flat'))).not.toBe(defaultJournalPath('catalog.csv', cwd));
    expect(JSON.stringify(target)).not.toContain('key-1');
  });

  it.each([
    ['the same file named two ways', true, 'catalog.csv', './data/../catalog.csv'],
    ['relative and absolute', true, 'catalog.csv', resolve(cwd, 'catalog.csv')],
    ['two files', false, 'a.csv', 'b.csv'],
    ['two URLs', false, 'https://x.test/a.csv', 'https://x.test/b.csv'],
    ['a URL is not resolved as a path', true, 's3://bucket/a.csv', 's3://bucket/a.csv'],
  ])('%s: same journal %s', (_name, same, a, b) => {
    expect(defaultJournalPath(a, cwd) === defaultJournalPath(b, cwd)).toBe(same);
  });

  it('a URL keeps its own identity, independent of the working directory', () => {
    const a = defaultJournalPath('https://x.test/a.csv', cwd);
    const b = defaultJournalPath('https://x.test/a.csv', resolve('/elsewhere'));
    expect(a.slice(-37)).toBe(b.slice(-37));
  });
});

describe('JournalWriter.open options', () => {
  it('fresh starts the file over in place; onError hears of a failed write once', async () => {
    const path = join(dir, 'j.ndjson');
    const old = await JournalWriter.open(path, header);
    old.record({ index: 0, sku: 'OLD', hash: HASH, outcome: 'published' });
    await old.close();
    const fresh = await JournalWriter.open(path, header, { fresh: true });
    fresh.record({ index: 0, sku: 'NEW', hash: HASH, outcome: 'published' });
    await fresh.close();
    expect(await readPublished(path)).toEqual(new Set([publishedKey('NEW', HASH)]));
  });

  it.skipIf(!existsSync('/dev/full'))('a device is written to, not replaced; its write error reaches onError and close', async () => {
    const errors: Error[] = [];
    const journal = await JournalWriter.open('/dev/full', header, { fresh: true, onError: (error) => errors.push(error) });
    journal.record({ index: 0, sku: 'A', hash: HASH, outcome: 'published' });
    await expect(journal.close()).rejects.toThrow(/ENOSPC/);
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });
});
