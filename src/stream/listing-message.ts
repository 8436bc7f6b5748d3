import type { DraftValues } from '../catalog/types.js';
import { isWrappedRequest, type ListingRequest } from '../contract/schemas.js';
import { stringifyJson } from '../json-number.js';

/**
 * The header that marks a message written by `listings enqueue`, and the version of its format. A stream reads such
 * a message as a listing already mapped and checked (its own renames and preset do not apply), and gives it the
 * Idempotency-Key of its content alone, as `publish` does: the same listing enqueued twice is created once.
 */
export const LISTING_HEADER = 'listings-message';
export const LISTING_FORMAT = 'listing/1';

/** A message of `listings enqueue`: its key, value and headers, as the producer sends them. */
export interface ListingMessage {
  /** `MARKETPLACE/SKU` (see listingKey): one listing, one partition. */
  key: string;
  value: string;
  headers: Record<string, string>;
}

/**
 * The key of a listing, `MARKETPLACE/SKU`: a listing's identity, so that every change of one listing lands on one
 * partition, in order. A marketplace never holds `/` (neither form does), so the first `/` splits it.
 */
export function listingKey(marketplace: string, sku: string): string {
  return `${marketplace}/${sku}`;
}

/**
 * The values of a request as a catalog record names them: what a stream maps back into the very same request. A
 * flat request is such a record already; a wrapped one is its payload with the marketplace.
 */
function recordOf(request: ListingRequest): Record<string, unknown> {
  if (!isWrappedRequest(request)) return request;
  return { ...request.payload, marketplace: request.marketplace };
}

/**
 * The message of a request ready to send: the request's values (defaults applied, checked against the contract),
 * written as `publish` writes the body, so that a stream sends the same bytes under the same Idempotency-Key.
 */
export function listingMessage(request: ListingRequest, sku: string): ListingMessage {
  return { key: listingKey(request.marketplace, sku), value: stringifyJson(recordOf(request)), headers: { [LISTING_HEADER]: LISTING_FORMAT } };
}

/** The format a message's headers name (`listing/1`), or undefined for a message that is not of `listings enqueue`. */
export function listingFormatOf(headers: Readonly<Record<string, Buffer | string | undefined>> | undefined): string | undefined {
  const value = headers?.[LISTING_HEADER];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.toString('utf8');
}

/** Why a listing message's key does not name its values' listing, or undefined when it does. */
export function listingKeyProblem(key: string | undefined, values: DraftValues): string | undefined {
  if (key === undefined || values.sku === undefined || values.marketplace === undefined) return undefined;
  const expected = listingKey(values.marketplace, values.sku);
  return key === expected ? undefined : `the message key ${JSON.stringify(key)} does not name the listing ${JSON.stringify(expected)}`;
}
