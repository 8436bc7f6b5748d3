import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { lstatSync, statSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtomicFile, writeFileAtomic } from '../../../src/fs/atomic-write.js';
import { ConfigError } from '../../../src/errors.js';
import { CHUNK_BYTES } from '../../../src/fs/utf8-chunks.js';

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
    expect(file.tempPath).toMatch(/\/out\.txt\.tmp-[0-9a-f]{12}$/);
    await file.write('hello ');
    await file.write('world');
    expect(await readdir(join(dir, 'sub'))).toEqual([file.tempPath.slice(join(dir, 'sub').length + 1)]);
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

  it('a directory at the path is refused at open, and nothing is left beside it', async () => {
    const path = join(dir, 'target');
    await mkdir(join(path, 'inner'), { recursive: true });
    const error = await AtomicFile.open(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`cannot write ${path}: it is a directory`);
    expect(await readdir(dir)).toEqual(['target']);
  });
});

describe('AtomicFile: hostile paths', () => {
  it('the temporary name is random: no two opens share one, and none is named by the pid', async () => {
    const path = join(dir, 'out.txt');
    const files = await Promise.all([AtomicFile.open(path), AtomicFile.open(path), AtomicFile.open(path)]);
    const names = files.map((file) => file.tempPath);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).not.toContain(String(process.pid));
    await Promise.all(files.map((file) => file.abort()));
  });

  it('a link planted at the old predictable temporary name (<path>.tmp-<pid>) is not followed: its target is untouched', async () => {
    const path = join(dir, 'out.txt');
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'secret');
    await symlink(victim, `${path}.tmp-${process.pid}`);
    await writeFileAtomic(path, 'report');
    expect(await readFile(victim, 'utf8')).toBe('secret');
    expect(lstatSync(path).isFile()).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('report');
  });

  it('a link of this user at the path is followed: the file it points to is replaced, the link stays', async () => {
    const real = join(dir, 'real.txt');
    const path = join(dir, 'link.txt');
    await writeFile(real, 'old');
    await symlink(real, path);
    await writeFileAtomic(path, 'new');
    expect(await readlink(path)).toBe(real);
    expect(await readFile(real, 'utf8')).toBe('new');
    expect((await readdir(dir)).sort()).toEqual(['link.txt', 'real.txt']);
  });

  it('a link that points nowhere is refused', async () => {
    const path = join(dir, 'link.txt');
    await symlink(join(dir, 'missing', 'x'), path);
    await expect(writeFileAtomic(path, 'x')).rejects.toThrow(`cannot write ${path}: it is a symbolic link to a file that does not exist`);
  });

  it.skipIf(process.getuid?.() !== 0)('a link owned by another user is not followed (as the kernel\'s protected_symlinks)', async () => {
    const real = join(dir, 'real.txt');
    const path = join(dir, 'link.txt');
    await writeFile(real, 'old');
    await symlink(real, path);
    spawnSync('chown', ['-h', '65534', path]);
    expect((await lstat(path)).uid).toBe(65534);
    await expect(writeFileAtomic(path, 'new')).rejects.toThrow(/symbolic link owned by another user \(uid 65534\), which is not followed/);
    expect(await readFile(real, 'utf8')).toBe('old');
  });

  it.skipIf(process.getuid?.() !== 0)('a folder on the way that is a link another user could plant (in a folder anyone may write to) is not followed', async () => {
    await mkdir(join(dir, 'chosen'));
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    await symlink(join(dir, 'chosen'), join(shared, 'planted'));
    spawnSync('chown', ['-h', '65534', join(shared, 'planted')]);
    await expect(writeFileAtomic(join(shared, 'planted', 'sub', 'r.csv'), 'new')).rejects.toThrow(`its folder ${join(shared, 'planted')} is a symbolic link owned by another user (uid 65534) in a folder anyone may write to, which is not followed`);
    expect(await readdir(join(dir, 'chosen'))).toEqual([]);
    // This user's link there, or another user's link in a folder only its owner writes to, is followed.
    await symlink(join(dir, 'chosen'), join(shared, 'mine'));
    await writeFileAtomic(join(shared, 'mine', 'r.csv'), 'ok');
    await symlink(join(dir, 'chosen'), join(dir, 'admin'));
    spawnSync('chown', ['-h', '65534', join(dir, 'admin')]);
    await writeFileAtomic(join(dir, 'admin', 'r2.csv'), 'ok');
    expect((await readdir(join(dir, 'chosen'))).sort()).toEqual(['r.csv', 'r2.csv']);
  });

  it('a named pipe is written in place and stays a pipe; a pipe is refused where a regular file is needed', async () => {
    const path = join(dir, 'pipe.csv');
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    const reader = readFile(path, 'utf8');
    await writeFileAtomic(path, 'through the pipe');
    expect(await reader).toBe('through the pipe');
    expect(statSync(path).isFIFO()).toBe(true);
    expect(await readdir(dir)).toEqual(['pipe.csv']);
    await expect(writeFileAtomic(path, 'x', { pipe: false })).rejects.toThrow(/it is a named pipe, and this file is read back or rewritten/);
  });

  it.skipIf(process.getuid?.() !== 0)('a character device (a null device made here) is written to, never replaced', async () => {
    const path = join(dir, 'null');
    expect(spawnSync('mknod', [path, 'c', '1', '3']).status).toBe(0);
    await writeFileAtomic(path, 'x'.repeat(200_000));
    expect(statSync(path).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['null']);
    await expect(writeFileAtomic(path, 'x', { device: false })).rejects.toThrow(/it is a device/);
  });
});

describe('AtomicFile: modes under umask 000', () => {
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('a private file is 0600 in a new 0700 folder; any other is never writable by others', async () => {
    await writeFileAtomic(join(dir, 'own', 'deeper', 'state.ndjson'), 'x', { private: true });
    expect(statSync(join(dir, 'own')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'own', 'deeper')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'own', 'deeper', 'state.ndjson')).mode & 0o777).toBe(0o600);
    await writeFileAtomic(join(dir, 'shared', 'r.csv'), 'x');
    expect(statSync(join(dir, 'shared')).mode & 0o777).toBe(0o775);
    expect(statSync(join(dir, 'shared', 'r.csv')).mode & 0o777).toBe(0o664);
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

describe('AtomicFile: text encoded as it is written', () => {
  it('a surrogate pair split across two writes at a chunk boundary is one character, not two U+FFFD', async () => {
    const path = join(dir, 'pair.txt');
    const file = await AtomicFile.open(path);
    // A chunk's size less one in units, then the first half of 😀: the text is encoded before the other half comes.
    await file.write(`${'a'.repeat(CHUNK_BYTES - 1)}\ud83d`);
    await file.write('\ude00 end');
    await file.commit();
    const text = await readFile(path, 'utf8');
    expect(text.slice(-6)).toBe('😀 end');
    expect(text).not.toContain('\ufffd');
  });

  it('many writes of mixed text (multi-byte, lone surrogates, texts larger than a chunk) give the bytes of the whole text encoded at once', async () => {
    const path = join(dir, 'mixed.txt');
    const pieces = ['plain\n', 'ü € 𝄞\n', 'lone \ud800 x', '\udc00 low', 'end \ud83d', '\ude00!', 'x'.repeat(70_000), '€'.repeat(30_000), 'tail \ud83d'];
    // Starting with a pair split at the first chunk's end (two U+FFFD when text was joined, then encoded, by chunks).
    const texts = [`${'a'.repeat(CHUNK_BYTES - 1)}\ud83d`, '\ude00', ...Array.from({ length: 3_000 }, (_, i) => pieces[i % pieces.length] ?? '')];
    const file = await AtomicFile.open(path);
    for (const text of texts) await file.write(text);
    await file.commit();
    expect((await readFile(path)).equals(Buffer.from(texts.join(''), 'utf8'))).toBe(true);
  });
});
