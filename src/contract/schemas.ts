import type { z } from 'zod';
import { loadZod } from './zod.js';
import { FLAT_MARKETPLACE, WRAPPED_MARKETPLACE } from './marketplace.js';
import { identifierProblem, isSafeIdentifier } from './identifier.js';

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

/** The contract's zod schemas; built by contractSchemas() on first use. */
function buildSchemas() {
  const { z } = loadZod();
  const text = z.string().trim().min(1, 'must not be empty');
  /** A string without control characters (see identifier.ts), checked as written, before anything else. */
  const safe = () => z.string().refine(isSafeIdentifier, { abort: true, error: (issue) => identifierProblem(String(issue.input)) });
  /** Text that names something (a SKU, a location, a policy, a condition): no control characters. */
  const identifier = safe().trim().min(1, 'must not be empty');

  /** `overrides`: only `condition` is shown; other keys are kept as they are. */
  const overridesSchema = z.looseObject({
    condition: identifier.optional(),
  });

  /**
   * Flat request, as the service accepts it when the workspace has saved Marketplace configurations
   * (the location key and the policy ids may be omitted).
   */
  const flatRequestSchema = z.strictObject({
    images_source: z.array(text).optional(),
    sku: identifier,
    marketplace: safe().regex(FLAT_MARKETPLACE, 'must be upper case with a region suffix, e.g. EBAY_US'),
    merchant_location_key: identifier.optional(),
    fulfillment_policy_id: identifier.optional(),
    payment_policy_id: identifier.optional(),
    return_policy_id: identifier.optional(),
    overrides: overridesSchema.optional(),
  });

  /** Flat request when no defaults are saved: the location key and the three policy ids are given (rule 2). */
  const flatRequestWithoutSavedDefaultsSchema = flatRequestSchema.extend({
    merchant_location_key: identifier,
    fulfillment_policy_id: identifier,
    payment_policy_id: identifier,
    return_policy_id: identifier,
  });

  /** Wrapped request: `{ marketplace, payload: { sku, title, ... } }`. */
  const wrappedRequestSchema = z.strictObject({
    marketplace: safe().regex(WRAPPED_MARKETPLACE, 'must be lower case without a region, e.g. ebay'),
    payload: z.looseObject({
      sku: identifier,
      title: text,
    }),
  });

  /** The listing the service answers with. The four shown fields are required; other fields are kept. */
  const listingResponseSchema = z.looseObject({
    sku: z.string(),
    status: z.string(),
    title: z.string(),
    item_specifics: z.array(z.string()),
  });

  return { overridesSchema, flatRequestSchema, flatRequestWithoutSavedDefaultsSchema, wrappedRequestSchema, listingResponseSchema };
}

/** The contract's zod schemas, by name. */
export type ContractSchemas = ReturnType<typeof buildSchemas>;

let schemas: ContractSchemas | undefined;

/** The contract's zod schemas; zod is loaded and the schemas built on the first call, then the same objects return. */
export function contractSchemas(): ContractSchemas {
  return (schemas ??= buildSchemas());
}

export type FlatListingRequest = z.infer<ContractSchemas['flatRequestSchema']>;
export type WrappedListingRequest = z.infer<ContractSchemas['wrappedRequestSchema']>;
export type ListingRequest = FlatListingRequest | WrappedListingRequest;
/** The listing the service answers with: `sku`, `status`, `title`, `item_specifics`, and any other field. */
export type ListingResponse = z.infer<ContractSchemas['listingResponseSchema']>;

export function isWrappedRequest(request: ListingRequest): request is WrappedListingRequest {
  return 'payload' in request;
}

/** The schema a request of this shape must satisfy, given whether defaults are saved on the server. */
export function requestSchemaFor(shape: Shape, savedDefaults: boolean) {
  const { wrappedRequestSchema, flatRequestSchema, flatRequestWithoutSavedDefaultsSchema } = contractSchemas();
  if (shape === 'wrapped') return wrappedRequestSchema;
  return savedDefaults ? flatRequestSchema : flatRequestWithoutSavedDefaultsSchema;
}

/** The SKU of a request of either shape. */
export function skuOf(request: ListingRequest): string {
  return isWrappedRequest(request) ? request.payload.sku : request.sku;
}
