import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtomicFile, writeFileAtomic } from '../../src/fs/atomic-write.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('AtomicFile', () => {
  it('writes under a temporary name and renames into place on commit', async () => {
    const path = join(dir, 'sub', 'out.txt');
    const file = await AtomicFile.open(path);
    expect(file.tempPath).toBe(`${path}.tmp-${process.pid}`);
    await file.write('hello ');
    await file.write('world');
    expect(await readdir(join(dir, 'sub'))).toEqual([`out.txt.tmp-${process.pid}`]);
    await file.commit();
    expect(await readFile(path, 'utf8')).toBe('hello world');
    expect(await readdir(join(dir, 'sub'))).toEqual(['out.txt']);
  });

  it('abort leaves no partial file and the old file untouched', async () => {
    const path = join(dir, 'out.txt');
    await writeFile(path, 'old');
    const file = await AtomicFile.open(path);
    await file.write('x'.repeat(200_000)); // past the in-memory chunk: some of it is on disk
    await file.abort();
    await file.abort();
    expect(await readdir(dir)).toEqual(['out.txt']);
    expect(await readFile(path, 'utf8')).toBe('old');
  });

  it('refuses writes after it is finished', async () => {
    const file = await AtomicFile.open(join(dir, 'out.txt'));
    await file.commit();
    expect(() => file.write('late')).toThrow(/already finished/);
    await expect(file.commit()).rejects.toThrow(/already finished/);
  });

  it('a failed rename leaves no temporary file behind', async () => {
    const path = join(dir, 'target');
    await writeFile(join(dir, 'placeholder'), '');
    // a directory with content cannot be replaced by a file
    await mkdir(join(path, 'inner'), { recursive: true });
    const file = await AtomicFile.open(path);
    await file.write('data');
    await expect(file.commit()).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['placeholder', 'target']);
  });
});

describe('writeFileAtomic', () => {
  it.each([
    ['a string', () => 'a\nb\n'],
    ['an iterable', () => ['a\n', 'b\n']],
    [
      'an async iterable',
      () =>
        (async function* () {
          yield await Promise.resolve('a\n');
          yield 'b\n';
        })(),
    ],
  ])('from %s', async (_name, content) => {
    const path = join(dir, 'f.txt');
    await writeFileAtomic(path, content());
    expect(await readFile(path, 'utf8')).toBe('a\nb\n');
  });

  it('a source that throws midway leaves the old file and no temporary file', async () => {
    const path = join(dir, 'f.txt');
    await writeFile(path, 'old');
    function* broken() {
      yield 'x'.repeat(100_000);
      throw new Error('boom');
    }
    await expect(writeFileAtomic(path, broken())).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual(['f.txt']);
    expect(await readFile(path, 'utf8')).toBe('old');
  });

  it('writes large content intact', async () => {
    const path = join(dir, 'big.txt');
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`);
    await writeFileAtomic(path, lines);
    expect(await readFile(path, 'utf8')).toBe(lines.join(''));
  });
});
