import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors.js';
import { loadState, saveState } from '../../src/publish/state-file.js';
import { runTarget, sandboxTarget } from '../../src/publish/run-target.js';

const target = runTarget({ baseUrl: 'https://api.example.test/', apiKey: 'key-1', marketplace: 'EBAY_US', shape: 'flat' });
const HEADER = JSON.stringify({ listings_state: 1, target });
const load = async (at: string) => (await loadState(at, target)).state;

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
    expect(await load(path)).toEqual(new Map());
  });

  it('an empty file is an empty state', async () => {
    await writeFile(join(dir, 'empty'), '');
    expect(await load(join(dir, 'empty'))).toEqual(new Map());
  });

  it('round-trips, including awkward SKUs, in the documented format', async () => {
    const state = new Map([
      ['SKU-1', 'aaaa'],
      ['with "quotes", commas\nand newline', 'bbbb'],
      ['ünïcödé ✓', 'cccc'],
      ['', 'dddd'],
    ]);
    await saveState(path, state, target);
    expect(await load(path)).toEqual(state);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n').slice(0, 2)).toEqual([HEADER, '["SKU-1","aaaa"]']);
    expect(await readdir(join(dir, '.listings'))).toEqual(['state.ndjson']);
  });

  it('saving replaces the previous state whole', async () => {
    await saveState(path, new Map([['A', '1'], ['B', '2']]), target);
    await saveState(path, new Map([['B', '3']]), target);
    expect(await load(path)).toEqual(new Map([['B', '3']]));
  });

  it.each([
    ['another JSON file', '{"a":1}\n'],
    ['a CSV', 'sku,hash\nA,1\n'],
    ['a bad entry', `${HEADER}\n["A","1"]\n["B"]\n`],
    ['a torn entry', `${HEADER}\n["A","1"]\n["B","\n`],
    ['a wrong type', `${HEADER}\n["A",1]\n`],
  ])('%s is a ConfigError, not an empty state', async (_name, content) => {
    await writeFile(join(dir, 'bad'), content);
    await expect(load(join(dir, 'bad'))).rejects.toThrow(ConfigError);
  });

  it('names the bad line', async () => {
    await writeFile(join(dir, 'bad'), `${HEADER}\n["A","1"]\nnope\n`);
    await expect(load(join(dir, 'bad'))).rejects.toThrow(/line 3/);
  });

  it('a folder where the file should be is a ConfigError', async () => {
    await expect(load(dir)).rejects.toThrow(ConfigError);
  });

  it.each([
    ['the sandbox', sandboxTarget('EBAY_US', 'flat')],
    ['another service', runTarget({ baseUrl: 'https://staging.example.test', apiKey: 'key-1', marketplace: 'EBAY_US', shape: 'flat' })],
    ['another workspace (key)', runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-2', marketplace: 'EBAY_US', shape: 'flat' })],
    ['another marketplace', runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-1', marketplace: 'EBAY_GB', shape: 'flat' })],
    ['another shape', runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-1', marketplace: 'EBAY_US', shape: 'wrapped' })],
  ])('the state of %s is ignored (and said so), never applied', async (_name, other) => {
    await saveState(path, new Map([['A', '1']]), other);
    const read = await loadState(path, target);
    expect(read.state).toEqual(new Map());
    expect(read.foreignTarget).toEqual(other);
    expect(await readFile(path, 'utf8')).not.toContain('key-');
  });

  it('a state that names no target (an older version) is ignored too', async () => {
    await writeFile(path.replace('state.ndjson', ''), '').catch(() => undefined);
    await saveState(path, new Map(), target);
    await writeFile(path, '{"listings_state":1}\n["A","1"]\n');
    const read = await loadState(path, target);
    expect(read.state).toEqual(new Map());
    expect(read.foreignTarget).toBeNull();
  });

  it('handles 200k SKUs quickly', async () => {
    const state = new Map<string, string>();
    for (let i = 0; i < 200_000; i++) state.set(`SKU-${i}`, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
    const start = performance.now();
    await saveState(path, state, target);
    const loaded = await load(path);
    const ms = performance.now() - start;
    expect(loaded.size).toBe(200_000);
    expect(loaded.get('SKU-199999')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
    expect(ms).toBeLessThan(5000); // typically well under a second
  });
});
