import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecords } from '../../../src/catalog/read-records.js';
import { collect } from '../../helpers/sources-collect.js';

// The SDK resolves to its CommonJS build, so once loaded it sits in the require cache of this (forked) worker.
const cache = createRequire(import.meta.url).cache;
function loaded(name: string): number {
  return Object.keys(cache).filter((path) => path.includes(`/node_modules/${name}/`)).length;
}
const awsModulesLoaded = (): number => loaded('@aws-sdk');

describe('heavy dependencies load lazily', () => {
  it('does not load undici (some 20 MB) to read a local file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'listings-lazy-'));
    try {
      await writeFile(join(dir, 'c.csv'), 'sku\nA\n');
      await collect((await openRecords(join(dir, 'c.csv'), {})).records);
      expect(loaded('undici')).toBe(0);
      await expect(openRecords('http://127.0.0.1:9/c.csv', {})).rejects.toThrow(/cannot fetch/);
      expect(loaded('undici')).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is not loaded by importing the reader and reading a local file, and is loaded for an s3:// source', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'listings-lazy-'));
    try {
      await writeFile(join(dir, 'c.csv'), 'sku\nA\n');
      await collect((await openRecords(join(dir, 'c.csv'), {})).records);
      expect(awsModulesLoaded()).toBe(0);
      // Nothing listens on port 9 (discard): the open fails, but only after the SDK was imported.
      process.env.AWS_ACCESS_KEY_ID = 'x';
      process.env.AWS_SECRET_ACCESS_KEY = 'y';
      process.env.AWS_MAX_ATTEMPTS = '1';
      await expect(openRecords('s3://bucket/c.csv', { s3Endpoint: 'http://127.0.0.1:9' })).rejects.toThrow(/^s3:\/\/bucket\/c\.csv: cannot reach the store: .*ECONNREFUSED/);
      expect(awsModulesLoaded()).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
