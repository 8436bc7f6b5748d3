import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors.js';
import { loadState, saveState } from '../../src/publish/state-file.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'state-'));
  path = join(dir, '.listings', 'state.ndjson');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('state file', () => {
  it('a missing file is an empty state', async () => {
    expect(await loadState(path)).toEqual(new Map());
  });

  it('an empty file is an empty state', async () => {
    await writeFile(join(dir, 'empty'), '');
    expect(await loadState(join(dir, 'empty'))).toEqual(new Map());
  });

  it('round-trips, including awkward SKUs, in the documented format', async () => {
    const state = new Map([
      ['SKU-1', 'aaaa'],
      ['with "quotes", commas\nand newline', 'bbbb'],
      ['ünïcödé ✓', 'cccc'],
      ['', 'dddd'],
    ]);
    await saveState(path, state);
    expect(await loadState(path)).toEqual(state);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n').slice(0, 2)).toEqual(['{"listings_state":1}', '["SKU-1","aaaa"]']);
    expect(await readdir(join(dir, '.listings'))).toEqual(['state.ndjson']);
  });

  it('saving replaces the previous state whole', async () => {
    await saveState(path, new Map([['A', '1'], ['B', '2']]));
    await saveState(path, new Map([['B', '3']]));
    expect(await loadState(path)).toEqual(new Map([['B', '3']]));
  });

  it.each([
    ['another JSON file', '{"a":1}\n'],
    ['a CSV', 'sku,hash\nA,1\n'],
    ['a bad entry', '{"listings_state":1}\n["A","1"]\n["B"]\n'],
    ['a torn entry', '{"listings_state":1}\n["A","1"]\n["B","\n'],
    ['a wrong type', '{"listings_state":1}\n["A",1]\n'],
  ])('%s is a ConfigError, not an empty state', async (_name, content) => {
    await writeFile(join(dir, 'bad'), content);
    await expect(loadState(join(dir, 'bad'))).rejects.toThrow(ConfigError);
  });

  it('names the bad line', async () => {
    await writeFile(join(dir, 'bad'), '{"listings_state":1}\n["A","1"]\nnope\n');
    await expect(loadState(join(dir, 'bad'))).rejects.toThrow(/line 3/);
  });

  it('a folder where the file should be is a ConfigError', async () => {
    await expect(loadState(dir)).rejects.toThrow(ConfigError);
  });

  it('handles 200k SKUs quickly', async () => {
    const state = new Map<string, string>();
    for (let i = 0; i < 200_000; i++) state.set(`SKU-${i}`, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
    const start = performance.now();
    await saveState(path, state);
    const loaded = await loadState(path);
    const ms = performance.now() - start;
    expect(loaded.size).toBe(200_000);
    expect(loaded.get('SKU-199999')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
    expect(ms).toBeLessThan(5000); // typically well under a second
  });
});
