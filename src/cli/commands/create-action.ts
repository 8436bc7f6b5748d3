import { setFlagsFromString } from 'node:v8';
import { ListingsClient } from '../../client/listings-client.js';
import { isSystemic } from '../../client/classify.js';
import { ApiError, UsageError } from '../../errors.js';
import { createPreparer } from '../../prepare/index.js';
import { idempotencyKey } from '../../publish/idempotency.js';
import type { Draft } from '../../catalog/types.js';
import type { ListingResponse } from '../../contract/schemas.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint, paintOut } from '../output.js';
import type { LoadedSettings } from '../settings.js';
import { stringifyJson } from '../../json-number.js';
import { printable } from '../../printable.js';

function draftFrom(sku: string, opts: Record<string, unknown>): Draft {
  const values: Draft['values'] = { sku };
  if (Array.isArray(opts.image) && opts.image.length > 0) values.images_source = opts.image as string[];
  if (typeof opts.title === 'string') values.title = opts.title;
  return { location: { source: 'command line' }, values, issues: [] };
}

/** The service's text on one line: a line break it sent is written `\u000a`, so it cannot forge a line of the output. */
const oneLine = (text: string): string => printable(text, { lines: false });

function printListing(listing: ListingResponse, status: number): void {
  out(`${paintOut.green('✔')} ${oneLine(listing.sku)}  ${paintOut.bold(oneLine(listing.status))}  (HTTP ${status})`);
  out(`  title           ${oneLine(listing.title)}`);
  out(`  item specifics  ${listing.item_specifics.length > 0 ? oneLine(listing.item_specifics.join(', ')) : '-'}`);
  for (const [key, value] of Object.entries(listing)) {
    if (['sku', 'status', 'title', 'item_specifics'].includes(key)) continue;
    out(`  ${oneLine(key).padEnd(15)} ${typeof value === 'string' ? oneLine(value) : stringifyJson(value)}`);
  }
}

/** `listings create SKU`: validate locally, send one request, show the listing. */
export async function runCreate(sku: string, opts: Record<string, unknown>, loaded: LoadedSettings): Promise<void> {
  const several = loaded.defaults.marketplaces;
  if (several !== undefined) {
    throw new UsageError(`create sends one listing, to one marketplace; the marketplace setting names ${several.length} (${several.join(', ')})`, {
      hint: `pass one with --marketplace, e.g. --marketplace ${several[0] ?? 'EBAY_US'} (or publish a catalog to all of them)`,
    });
  }
  const prepared = createPreparer(loaded.defaults)(draftFrom(sku, opts));
  if (prepared.kind !== 'ready') {
    const issues = prepared.kind === 'invalid' ? prepared.issues : [{ path: '(record)', message: prepared.reason }];
    for (const issue of issues) err(`${paint.red('invalid')} ${issue.path}: ${issue.message}`);
    err('nothing was sent');
    throw new ExitError(EXIT.rowsFailed);
  }
  // undici parses HTTP with a WebAssembly module that V8 also compiles with its optimising tier in the background,
  // and the process waits for that compile before it exits: ~90 ms of a ~300 ms command that sends one request.
  // The baseline tier alone is plenty for one answer (never for publish, where the parser runs a million times).
  setFlagsFromString('--liftoff-only');
  const client = new ListingsClient({
    baseUrl: loaded.baseUrl(),
    apiKey: loaded.apiKey(),
    connections: 1,
    allowInsecureHttp: loaded.allowInsecureHttp,
    ...(typeof opts.timeout === 'number' ? { timeoutMs: opts.timeout } : {}),
  });
  const body = stringifyJson(prepared.request);
  try {
    const { status, listing } = await client.postListingJson(body, { idempotencyKey: idempotencyKey(body) });
    if (opts.json) out(stringifyJson(listing, 2));
    else printListing(listing, status);
  } catch (error) {
    // A rejected item (4xx other than auth or endpoint) is the row's fault: exit 1. Everything else is the service's.
    if (error instanceof ApiError && error.status >= 400 && error.status < 500 && !isSystemic(error)) {
      err(`${paint.red('rejected')} ${sku}: ${error.message}`);
      if (opts.json) out(stringifyJson({ error: { status: error.status, message: error.message, body: error.body } }));
      throw new ExitError(EXIT.rowsFailed);
    }
    throw error;
  } finally {
    await client.close();
  }
}
