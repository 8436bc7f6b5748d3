import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

// The built package, imported by its own name through the `exports` map, as a user of the library would.
const lib = await import('listings-cli');

describe('the library surface (built package)', () => {
  it('publishes a catalog to an in-process sandbox with publishCatalog and a ListingsClient', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'lib-test-key' });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'lib-test-key', connections: 4 });
    try {
      const run = await lib.publishCatalog(join(REPO_ROOT, 'fixtures', 'catalog.csv'), { sender: client, concurrency: 4 });
      const outcomes: string[] = [];
      for await (const outcome of run) outcomes.push(outcome.outcome);
      expect(run.end).toEqual({ kind: 'completed' });
      expect(outcomes.length).toBe(20);
      expect(new Set(outcomes)).toEqual(new Set(['published']));
      expect(sandbox.stats()).toMatchObject({ created: 20, duplicates: 0 });

      const { status, listing } = await client.createListing({ marketplace: 'ebay', payload: { sku: 'LIB-1', title: 'Library mug' } });
      expect(status).toBe(201);
      expect(listing).toMatchObject({ sku: 'LIB-1', status: 'ready', title: 'Library mug' });
    } finally {
      await client.close();
      await sandbox.close();
    }
  });

  it('throws typed errors a caller can branch on', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'right-key' });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'wrong-key-123' });
    try {
      const error: unknown = await client.createListing({ marketplace: 'ebay', payload: { sku: 'X', title: 'Y' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(lib.ApiError);
      expect((error as InstanceType<typeof lib.ApiError>).status).toBe(401);
      expect(lib.isSystemic(error)).toBe(true);
      expect(lib.isRetryable(error)).toBe(false);
      expect(String((error as Error).message)).not.toContain('wrong-key-123');
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});
