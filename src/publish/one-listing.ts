import type { Draft } from '../catalog/types.js';
import { classifyFailure } from '../client/classify.js';
import type { ListingsClient } from '../client/listings-client.js';
import { skuOf, type ListingRequest, type ListingResponse } from '../contract/schemas.js';
import { ApiError, UsageError } from '../errors.js';
import { stringifyJson } from '../json-number.js';
import { createPreparer } from '../prepare/index.js';
import type { ListingDefaults } from '../prepare/types.js';
import type { FieldIssue } from '../contract/issues.js';
import { idempotencyKey } from './idempotency.js';
import { echoMismatch } from './echo.js';

/** One listing, given by its fields rather than read from a catalog (`listings create SKU`): checked, then sent. */

/** The fields of the one listing. */
export interface OneListingFields {
  sku: string;
  title?: string | undefined;
  images?: readonly string[] | undefined;
}

/**
 * The request of one listing, checked locally against the defaults (nothing is sent), or the issues that make it
 * invalid. Defaults that name several marketplaces are a UsageError: one listing goes to one.
 */
export function prepareOneListing(fields: OneListingFields, defaults: ListingDefaults): { request: ListingRequest } | { issues: FieldIssue[] } {
  const several = defaults.marketplaces;
  if (several !== undefined) {
    throw new UsageError(`create sends one listing, to one marketplace; the marketplace setting names ${several.length} (${several.join(', ')})`, {
      hint: (name) => `pass one with ${name('marketplace')}, e.g. ${name('marketplace')} ${several[0] ?? 'EBAY_US'} (or publish a catalog to all of them)`,
      setting: { key: 'marketplace' },
    });
  }
  const values: Draft['values'] = { sku: fields.sku };
  if (fields.images !== undefined && fields.images.length > 0) values.images_source = [...fields.images];
  if (fields.title !== undefined) values.title = fields.title;
  const prepared = createPreparer(defaults)({ location: { source: 'command line' }, values, issues: [] });
  if (prepared.kind === 'ready') return { request: prepared.request };
  return { issues: prepared.kind === 'invalid' ? prepared.issues : [{ path: '(record)', message: prepared.reason }] };
}

/**
 * Sends one listing request with its idempotency key. A rejected item (a 4xx that is the listing's fault) is
 * returned; every other failure (the service's: auth, endpoint, and pushback or a transient 4xx such as 429 or 408,
 * which say nothing of the listing) is thrown.
 */
export async function sendOneListing(client: ListingsClient, request: ListingRequest): Promise<{ status: number; listing: ListingResponse } | { rejected: ApiError }> {
  const body = stringifyJson(request);
  try {
    const result = await client.postListingJson(body, { idempotencyKey: idempotencyKey(body) });
    const mismatch = echoMismatch(skuOf(request), result);
    if (mismatch !== undefined) throw mismatch;
    return result;
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500 && classifyFailure(error) === 'row') return { rejected: error };
    throw error;
  }
}
