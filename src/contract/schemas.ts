import { z } from 'zod';
import { FLAT_MARKETPLACE, WRAPPED_MARKETPLACE } from './marketplace.js';

/** The one documented operation, relative to the base URL. */
export const LISTINGS_PATH = '/v1/listings';

import type { Shape } from './shapes.js';

export { SHAPES, type Shape } from './shapes.js';

/** Fields that may be left to the workspace's saved Marketplace configurations (rules 1 and 2). */
export const DEFAULTABLE_FIELDS = [
  'merchant_location_key',
  'fulfillment_policy_id',
  'payment_policy_id',
  'return_policy_id',
] as const;
export type DefaultableField = (typeof DEFAULTABLE_FIELDS)[number];

const text = z.string().trim().min(1, 'must not be empty');

/** `overrides`: only `condition` is shown; other keys are kept as they are. */
export const overridesSchema = z.looseObject({
  condition: text.optional(),
});

/**
 * Flat request, as the service accepts it when the workspace has saved Marketplace configurations
 * (the location key and the policy ids may be omitted).
 */
export const flatRequestSchema = z.strictObject({
  images_source: z.array(text).optional(),
  sku: text,
  marketplace: z.string().regex(FLAT_MARKETPLACE, 'must be upper case with a region suffix, e.g. EBAY_US'),
  merchant_location_key: text.optional(),
  fulfillment_policy_id: text.optional(),
  payment_policy_id: text.optional(),
  return_policy_id: text.optional(),
  overrides: overridesSchema.optional(),
});
export type FlatListingRequest = z.infer<typeof flatRequestSchema>;

/** Flat request when no defaults are saved: the location key and the three policy ids are given (rule 2). */
export const flatRequestWithoutSavedDefaultsSchema = flatRequestSchema.extend({
  merchant_location_key: text,
  fulfillment_policy_id: text,
  payment_policy_id: text,
  return_policy_id: text,
});

/** Wrapped request: `{ marketplace, payload: { sku, title, ... } }`. */
export const wrappedRequestSchema = z.strictObject({
  marketplace: z.string().regex(WRAPPED_MARKETPLACE, 'must be lower case without a region, e.g. ebay'),
  payload: z.looseObject({
    sku: text,
    title: text,
  }),
});
export type WrappedListingRequest = z.infer<typeof wrappedRequestSchema>;

export type ListingRequest = FlatListingRequest | WrappedListingRequest;

/** The listing the service answers with. The four shown fields are required; other fields are kept. */
export const listingResponseSchema = z.looseObject({
  sku: z.string(),
  status: z.string(),
  title: z.string(),
  item_specifics: z.array(z.string()),
});
export type ListingResponse = z.infer<typeof listingResponseSchema>;

export function isWrappedRequest(request: ListingRequest): request is WrappedListingRequest {
  return 'payload' in request;
}

/** The schema a request of this shape must satisfy, given whether defaults are saved on the server. */
export function requestSchemaFor(shape: Shape, savedDefaults: boolean) {
  if (shape === 'wrapped') return wrappedRequestSchema;
  return savedDefaults ? flatRequestSchema : flatRequestWithoutSavedDefaultsSchema;
}

/** The SKU of a request of either shape. */
export function skuOf(request: ListingRequest): string {
  return isWrappedRequest(request) ? request.payload.sku : request.sku;
}
