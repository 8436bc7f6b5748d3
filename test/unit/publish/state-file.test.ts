import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/errors.js';
import { loadState, saveState } from '../../../src/publish/state-file.js';
import { runTarget, sandboxTarget } from '../../../src/publish/run-target.js';
import { ListingState } from '../../../src/publish/listing-state.js';

const target = runTarget({ baseUrl: 'https://api.example.test/', apiKey: 'key-1', marketplace: 'EBAY_US', shape: 'flat' });
const HEADER = JSON.stringify({ listings_state: 2, target });
const V1_HEADER = JSON.stringify({ listings_state: 1, target });
/** The state's entries as a Map keyed `marketplace/sku`, to compare. */
const flat = (state: ListingState) => new Map([...state.entries()].map(([marketplace, sku, hash]) => [`${marketplace}/${sku}`, hash]));
const load = async (at: string) => flat((await loadState(at, target)).state);
const stateOf = (entries: [string, string, string][]) => new ListingState(entries);

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

  it('round-trips, including awkward SKUs and one SKU on several marketplaces, in the documented format', async () => {
    const state = stateOf([
      ['EBAY_US', 'SKU-1', 'aaaa'],
      ['EBAY_GB', 'SKU-1', 'abab'],
      ['EBAY_US', 'with "quotes", commas\nand newline', 'bbbb'],
      ['EBAY_US', 'ünïcödé ✓', 'cccc'],
      ['EBAY_DE', '', 'dddd'],
    ]);
    await saveState(path, state, target);
    expect(await load(path)).toEqual(flat(state));
    const read = (await loadState(path, target)).state;
    expect([read.get('EBAY_US', 'SKU-1'), read.get('EBAY_GB', 'SKU-1'), read.get('EBAY_DE', 'SKU-1')]).toEqual(['aaaa', 'abab', undefined]);
    expect(read.size).toBe(5);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n').slice(0, 2)).toEqual([HEADER, '["EBAY_US","SKU-1","aaaa"]']);
    expect(await readdir(join(dir, '.listings'))).toEqual(['state.ndjson']);
  });

  it('saving replaces the previous state whole', async () => {
    await saveState(path, stateOf([['EBAY_US', 'A', '1'], ['EBAY_US', 'B', '2']]), target);
    await saveState(path, stateOf([['EBAY_US', 'B', '3']]), target);
    expect(await load(path)).toEqual(new Map([['EBAY_US/B', '3']]));
  });

  it('a version 1 state (keyed by SKU alone) is read as legacy entries: found by SKU on any marketplace, replaced as listings are accepted', async () => {
    await saveState(path, new ListingState(), target);
    await writeFile(path, `${V1_HEADER}\n["A","hash-a"]\n["B","hash-b"]\n`);
    const state = (await loadState(path, target)).state;
    // The content hash covers the marketplace: only the very request accepted before matches.
    expect(state.get('EBAY_US', 'A')).toBe('hash-a');
    expect(state.get('EBAY_GB', 'A')).toBe('hash-a');
    expect(state.get('EBAY_US', 'C')).toBeUndefined();
    state.set('EBAY_US', 'A', 'hash-a2');
    expect([state.get('EBAY_US', 'A'), state.get('EBAY_GB', 'A'), state.size]).toEqual(['hash-a2', undefined, 2]);
    await saveState(path, state, target);
    expect((await readFile(path, 'utf8')).split('\n')).toEqual([HEADER, '["EBAY_US","A","hash-a2"]', '["","B","hash-b"]', '']);
    expect((await loadState(path, target)).state.get('EBAY_DE', 'B')).toBe('hash-b');
  });

  it.each([
    ['another JSON file', '{"a":1}\n'],
    ['a CSV', 'sku,hash\nA,1\n'],
    ['a bad entry', `${HEADER}\n["M","A","1"]\n["B"]\n`],
    ['a torn entry', `${HEADER}\n["M","A","1"]\n["M","B","\n`],
    ['a wrong type', `${HEADER}\n["M","A",1]\n`],
    ['a version 1 entry in a version 2 file', `${HEADER}\n["A","1"]\n`],
    ['a version 2 entry in a version 1 file', `${V1_HEADER}\n["M","A","1"]\n`],
    ['an unknown version', `${JSON.stringify({ listings_state: 3, target })}\n`],
  ])('%s is a ConfigError, not an empty state', async (_name, content) => {
    await writeFile(join(dir, 'bad'), content);
    await expect(load(join(dir, 'bad'))).rejects.toThrow(ConfigError);
  });

  it('names the bad line', async () => {
    await writeFile(join(dir, 'bad'), `${HEADER}\n["M","A","1"]\nnope\n`);
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
    ['several marketplaces', runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-1', marketplace: 'EBAY_US,EBAY_GB', shape: 'flat' })],
    ['another shape', runTarget({ baseUrl: 'https://api.example.test', apiKey: 'key-1', marketplace: 'EBAY_US', shape: 'wrapped' })],
  ])('the state of %s is ignored (and said so), never applied', async (_name, other) => {
    await saveState(path, stateOf([['EBAY_US', 'A', '1']]), other);
    const read = await loadState(path, target);
    expect(read.state.size).toBe(0);
    expect(read.foreignTarget).toEqual(other);
    expect(await readFile(path, 'utf8')).not.toContain('key-');
  });

  it('a state that names no target (an older version) is ignored too', async () => {
    await writeFile(path.replace('state.ndjson', ''), '').catch(() => undefined);
    await saveState(path, new ListingState(), target);
    await writeFile(path, '{"listings_state":1}\n["A","1"]\n');
    const read = await loadState(path, target);
    expect(read.state.size).toBe(0);
    expect(read.foreignTarget).toBeNull();
  });

  it('handles 200k SKUs quickly', async () => {
    const state = new ListingState();
    for (let i = 0; i < 200_000; i++) state.set(i % 2 === 0 ? 'EBAY_US' : 'EBAY_GB', `SKU-${i >> 1}`, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
    const start = performance.now();
    await saveState(path, state, target);
    const loaded = (await loadState(path, target)).state;
    const ms = performance.now() - start;
    expect(loaded.size).toBe(200_000);
    expect(loaded.get('EBAY_GB', 'SKU-99999')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4');
    expect(ms).toBeLessThan(5000); // typically well under a second
  });
});
