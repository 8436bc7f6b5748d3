import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, publishEnv, writeCatalog } from '../helpers/publish.js';

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

      let written = 0;
      const { status, listing } = await client.createListing({ marketplace: 'ebay', payload: { sku: 'LIB-1', title: 'Library mug' } }, { onWritten: () => written++ });
      expect(status).toBe(201);
      expect(written, 'onWritten, once the request is on a connection').toBe(1);
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

describe('a request JavaScript would send otherwise than given (built package)', () => {
  const flat = { marketplace: 'EBAY_US', merchant_location_key: 'wh-1', fulfillment_policy_id: 'F-1', payment_policy_id: 'P-1', return_policy_id: 'R-1', images_source: ['https://images.example.com/a.jpg'] };

  it('createListing refuses NaN, a BigInt, a function, a cycle, a list hole and depth past 64 with a UsageError naming the place; nothing is sent', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'lib-test-key' });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'lib-test-key' });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const cases: Array<[unknown, string]> = [
      [{ ...flat, sku: 'A', overrides: { price: Number.NaN } }, 'createListing: request.overrides.price is NaN, which JSON cannot carry (it would be sent as null)'],
      [{ ...flat, sku: 'A', overrides: { price: 10n } }, 'createListing: request.overrides.price is a BigInt, which JSON cannot carry: give it as a number or a string'],
      [{ ...flat, sku: 'A', overrides: { price: () => 1 } }, 'createListing: request.overrides.price is a function, which JSON cannot carry (it would be left out)'],
      [{ ...flat, sku: 'A', images_source: ['https://x/a.jpg', undefined] }, 'createListing: request.images_source[1] is undefined, which JSON cannot carry in a list (it would be sent as null)'],
      [{ ...flat, sku: 'A', overrides: circular }, 'is nested deeper than 64 levels (or holds itself)'],
      [{ ...flat, sku: 'A', overrides: deep }, 'is nested deeper than 64 levels (or holds itself)'],
      [null, 'createListing: request must be an object, not null'],
    ];
    try {
      for (const [request, message] of cases) {
        const error: unknown = await client.createListing(request as never).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(lib.UsageError);
        expect((error as Error).message).toContain(message);
        expect((error as InstanceType<typeof lib.UsageError>).setting).toEqual({ key: 'request' });
      }
      expect(sandbox.stats().created).toBe(0);
      // A Date says itself how it is written, and an undefined property is an absent field: both are sent.
      const sent = await client.createListing({ ...flat, sku: 'OK-1', title: undefined, overrides: { condition: 'NEW' } } as never);
      expect(sent.status).toBe(201);
    } finally {
      await client.close();
      await sandbox.close();
    }
  });

  it('publishRows: a row the caller prepared with such a request is an invalid row naming the field, the others are published', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'lib-test-key' });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'lib-test-key' });
    const requests = [{ ...flat, sku: 'R-1' }, { ...flat, sku: 'R-2', overrides: { price: Number.POSITIVE_INFINITY } }, { ...flat, sku: 'R-3', overrides: { price: 5n } }];
    async function* rows() {
      for (const [i, request] of requests.entries()) yield await Promise.resolve({ kind: 'ready' as const, location: { source: 'memory', record: i + 1 }, sku: request.sku, request: request as never });
    }
    try {
      const outcomes: Array<[string | undefined, string, unknown]> = [];
      for await (const outcome of lib.publishRows(rows(), { sender: client })) outcomes.push([outcome.sku, outcome.outcome, outcome.issues]);
      expect(outcomes).toEqual([
        ['R-1', 'published', undefined],
        ['R-2', 'invalid', [{ path: 'overrides.price', message: 'is Infinity, which JSON cannot carry (it would be sent as null)' }]],
        ['R-3', 'invalid', [{ path: 'overrides.price', message: 'is a BigInt, which JSON cannot carry: give it as a number or a string' }]],
      ]);
      expect(sandbox.stats().created).toBe(1);
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});

/** What `listings publish` does of a catalog, done from the library: journal, state, reports and the verdict. */
async function publishFromLibrary(catalog: string, dir: string, url: string, apiKey: string) {
  const client = new lib.ListingsClient({ baseUrl: url, apiKey });
  const target = lib.runTarget({ baseUrl: url, apiKey, marketplace: undefined, shape: 'flat' });
  const state = new lib.ListingState();
  const stop = new AbortController();
  const reports = [join(dir, 'lib.csv'), join(dir, 'lib.html')];
  const paths = { journal: join(dir, 'lib.journal'), state: join(dir, 'lib.state') };
  const outputs = await lib.RunOutputs.open({
    reports,
    journal: { path: paths.journal, header: { source: catalog, startedAt: new Date().toISOString(), target }, fresh: true },
    state: { path: paths.state, target, state },
    onFailure: () => stop.abort(),
  });
  try {
    const run = await lib.publishCatalog(catalog, { sender: client, stop: stop.signal, changedOnly: state, ...(outputs.journal === undefined ? {} : { journal: outputs.journal }) });
    const counter = new lib.SummaryCounter();
    for await (const outcome of run) {
      counter.add(outcome);
      await outputs.write(outcome);
    }
    const summary = counter.summary(1, reports);
    const verdict = lib.publishVerdict({ end: run.end, summary, outputFailure: outputs.failure });
    await outputs.close(summary, { exitCode: verdict.exitCode, why: verdict.why });
    return { verdict: lib.publishVerdict({ end: run.end, summary, outputFailure: outputs.failure }), paths, html: readFileSync(reports[1] ?? '', 'utf8') };
  } finally {
    await outputs.abort();
    await client.close();
  }
}

describe('one verdict for the library and the CLI', () => {
  // Every fifth row has an image that is not a URL: invalid, never sent.
  const invalidEvery5 = (i: number): string => (i % 5 === 0 ? csvRow(i).replace(`https://images.example.com/${i}/a.jpg`, 'images/a.jpg') : csvRow(i));
  it.each([
    ['some rows invalid', 'verdict-key', 1, '2 rows invalid; 8 published'],
    ['the key rejected', 'a-wrong-key', 3, 'the service could not be used, so nothing more was sent'],
  ])('%s: the library, with journal, state and reports, gets the exit code and why the CLI ends with', async (_name, key, code, why) => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'verdict-key' });
    try {
      const dir = tempDir();
      const catalog = writeCatalog(dir, 10, 'catalog.csv', invalidEvery5);
      const library = await publishFromLibrary(catalog, dir, sandbox.url, key);
      expect(library.verdict.exitCode).toBe(code);
      expect(library.verdict.why).toContain(why);
      expect(existsSync(library.paths.journal)).toBe(true);
      expect(library.html).toContain(`data-meta="exit-code">${code}</span>`);

      const cli = await runCli(['publish', catalog, '--changed-only', '--report', join(dir, 'cli.html'), '--log-format', 'json'], { cwd: dir, env: publishEnv(sandbox.url, key) });
      expect(cli.code, cli.stderr).toBe(code);
      const end = (JSON.parse(cli.stderr.trim().split('\n').at(-1) ?? '{}') as { end?: { exit_code?: number; why?: string } }).end;
      expect(end).toMatchObject({ exit_code: library.verdict.exitCode, why: library.verdict.why });
      expect(readFileSync(join(dir, 'cli.html'), 'utf8')).toContain(`data-meta="exit-code">${code}</span>`);
    } finally {
      await sandbox.close();
    }
  });
});

describe('validate on the run layer: the library and the CLI', () => {
  it('runValidateSpec with an error limit gets the counts, the errors as data and the verdict the CLI prints', async () => {
    const source = join(REPO_ROOT, 'fixtures', 'catalog-with-errors.csv');
    const report = join(tempDir(), 'validate.csv');
    const defaults = { shape: 'flat' as const, saved_defaults: false };
    const result = await lib.runValidateSpec({ source: { sources: [source], catalog: {} }, target: { defaults }, outputs: { reports: [report] }, maxErrors: 2, showErrors: 1 });
    expect(result.counts).toEqual({ rows: 7, inputRows: 7, valid: 1, invalid: 2, skipped: 0, notValidated: 4 });
    expect(result.errors).toEqual([{ location: { source, line: 3 }, marketplace: 'EBAY_US', issue: { path: 'images_source[1]', message: 'not an absolute http(s) URL: "images/mug-sand-2.jpg" (a path: give the address it is under with image_base_url or in the profile)' } }]);
    expect(result.errorsNotShown).toBe(1);
    expect(result.summary?.report).toEqual([report]);
    expect(readFileSync(report, 'utf8').trim().split('\n')).toHaveLength(8);
    const cli = await runCli(['validate', source, '--max-errors', '2', '--show-errors', '1', '--json']);
    expect(cli.code).toBe(result.verdict.exitCode);
    expect((JSON.parse(cli.stdout) as { verdict: unknown }).verdict).toEqual({ exit_code: result.verdict.exitCode, why: result.verdict.why });
  });
  it('refuses a ListingsClient option of the wrong type from an untyped caller, naming it, before any connection', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'opt-key' });
    const baseUrl = sandbox.url;
    const make = (options: unknown): unknown => {
      try {
        return new lib.ListingsClient(options as ConstructorParameters<typeof lib.ListingsClient>[0]);
      } catch (error) {
        return error;
      }
    };
    const cases: Array<[unknown, string]> = [
      [{ baseUrl, apiKey: 12345 }, 'apiKey'],
      [{ baseUrl }, 'apiKey'],
      [{ baseUrl, apiKey: 'secret-key-77\nX-Injected: 1' }, 'apiKey'],
      [{ baseUrl: 5, apiKey: 'k' }, 'baseUrl'],
      [{ baseUrl, apiKey: 'k', timeoutMs: Number.NaN }, 'timeoutMs'],
      [{ baseUrl, apiKey: 'k', timeoutMs: '100' }, 'timeoutMs'],
      [{ baseUrl, apiKey: 'k', timeoutMs: 1e300 }, 'timeoutMs'],
      [{ baseUrl, apiKey: 'k', connectTimeoutMs: -1 }, 'connectTimeoutMs'],
      [{ baseUrl, apiKey: 'k', connections: '8' }, 'connections'],
      [{ baseUrl, apiKey: 'k', connections: 0 }, 'connections'],
      [{ baseUrl, apiKey: 'k', userAgent: 'a\r\nb' }, 'userAgent'],
      [{ baseUrl, apiKey: 'k', proxy: true }, 'proxy'],
      [{ baseUrl, apiKey: 'k', allowInsecureHttp: 'no' }, 'allowInsecureHttp'],
      [{ baseUrl, apiKey: 'k', timeout: 100 }, 'timeout'],
      [JSON.parse(`{"baseUrl":${JSON.stringify(baseUrl)},"apiKey":"k","__proto__":{"timeoutMs":1}}`), '__proto__'],
      [{ baseUrl, get apiKey(): string { throw new Error('getter'); } }, 'apiKey'],
    ];
    try {
      for (const [options, key] of cases) {
        const error = make(options);
        expect(error, key).toBeInstanceOf(lib.ConfigError);
        expect((error as InstanceType<typeof lib.ConfigError>).setting?.key, key).toBe(key);
        expect((error as Error).message).not.toContain('secret-key-77');
      }
      for (const options of [null, `${baseUrl}`, { baseUrl: `${baseUrl}/#frag`, apiKey: 'k' }, { baseUrl: `${baseUrl}/?tenant=1`, apiKey: 'k' }]) {
        expect(make(options)).toBeInstanceOf(lib.ConfigError);
      }
      const client = new lib.ListingsClient({ baseUrl, apiKey: 'opt-key' });
      try {
        for (const [options, key] of [[{ signal: 'x' }, 'signal'], [{ idempotencyKey: 'a\nb' }, 'idempotencyKey'], [{ idempotencyKey: 5 }, 'idempotencyKey'], [{ onWritten: 'soon' }, 'onWritten']] as const) {
          const error: unknown = await client.createListing({ marketplace: 'ebay', payload: { sku: 'X', title: 'Y' } }, options as never).catch((e: unknown) => e);
          expect(error, key).toBeInstanceOf(lib.UsageError);
          expect((error as InstanceType<typeof lib.UsageError>).setting?.key).toBe(key);
        }
      } finally {
        await client.close();
      }
      expect(sandbox.stats().requests).toBe(0);
    } finally {
      await sandbox.close();
    }
  });
  it('refuses a publishCatalog option of the wrong type, naming it, before a request is sent', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'pub-key' });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'pub-key' });
    const catalog = join(REPO_ROOT, 'fixtures', 'catalog.csv');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ sender: null }, 'sender'],
      [{ sender: {} }, 'sender'],
      [{ sender: { postListingJson: () => Promise.resolve(), prepareConnections: 5 } }, 'sender'],
      [{ sender: { postListingJson: () => Promise.resolve(), destroy: 'yes' } }, 'sender'],
      [{ sender: client, concurrency: Number.NaN }, 'concurrency'],
      [{ sender: client, concurrency: '8' }, 'concurrency'],
      [{ sender: client, maxConcurrency: Infinity }, 'maxConcurrency'],
      [{ sender: client, rate: '5' }, 'rate'],
      [{ sender: client, giveUpAfterMs: Number.NaN }, 'giveUpAfterMs'],
      [{ sender: client, giveUpAfterMs: -1 }, 'giveUpAfterMs'],
      [{ sender: client, maxErrors: 0 }, 'maxErrors'],
      [{ sender: client, onSettled: 5 }, 'onSettled'],
      [{ sender: client, stop: true }, 'stop'],
    ];
    try {
      for (const [options, key] of cases) {
        const error: unknown = await lib.publishCatalog(catalog, options as never).catch((e: unknown) => e);
        expect(error, key).toBeInstanceOf(lib.ConfigError);
        expect((error as InstanceType<typeof lib.ConfigError>).setting?.key, key).toBe(key);
      }
      expect(await lib.publishCatalog(catalog, null as never).catch((e: unknown) => e)).toBeInstanceOf(lib.ConfigError);
      for (const rows of [null, 5, [{ sku: 'A' }]]) {
        const error = ((): unknown => {
          try {
            return lib.publishRows(rows as never, { sender: client });
          } catch (e) {
            return e;
          }
        })();
        expect(error, JSON.stringify(rows)).toBeInstanceOf(lib.ConfigError);
        expect((error as InstanceType<typeof lib.ConfigError>).setting?.key).toBe('rows');
      }
      expect(sandbox.stats().requests).toBe(0);
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
  it('ends a run whose onSettled or onEvent throws with a UsageError naming it, without a hang or an unhandled rejection', async () => {
    const sandbox = await lib.startSandbox({ port: 0, apiKey: 'cb-key' });
    const client = new lib.ListingsClient({ baseUrl: sandbox.url, apiKey: 'cb-key' });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const key of ['onSettled', 'onEvent'] as const) {
        const run = await lib.publishCatalog(join(REPO_ROOT, 'fixtures', 'catalog.csv'), {
          sender: client,
          [key]: () => {
            throw new Error(`${key} boom`);
          },
        });
        const ending = (async () => {
          for await (const outcome of run) void outcome;
        })().catch((e: unknown) => e);
        const error = await Promise.race([ending, new Promise((resolve) => setTimeout(() => resolve('hang'), 5000))]);
        expect(error, key).toBeInstanceOf(lib.UsageError);
        expect((error as InstanceType<typeof lib.UsageError>).setting?.key).toBe(key);
        expect((error as Error).message).toContain(`${key} boom`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await client.close();
      await sandbox.close();
    }
  });
});
