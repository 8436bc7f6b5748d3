import type { Shape, ListingRequest } from '../contract/schemas.js';
import type { FieldIssue } from '../contract/issues.js';
import type { Location } from '../errors.js';

/**
 * Listing defaults after flag > env > profile > built-in resolution (the row's own values still win over these).
 */
export interface ListingDefaults {
  shape: Shape;
  /** The workspace has Marketplace configurations saved on the server (rule 1). */
  saved_defaults: boolean;
  /** The one marketplace of rows that name none. */
  marketplace?: string;
  /**
   * Two or more marketplaces (`--marketplace EBAY_US,EBAY_GB`): a row that names no marketplace of its own is
   * published to each (see fanOutDrafts), one listing per (row, marketplace). `marketplace` is then unset.
   */
  marketplaces?: readonly string[];
  merchant_location_key?: string;
  fulfillment_policy_id?: string;
  payment_policy_id?: string;
  return_policy_id?: string;
  condition?: string;
  /**
   * The address relative image paths are under: `/m/b/mb01.jpg` with `https://shop.example.com/media/catalog/product`
   * is sent as `https://shop.example.com/media/catalog/product/m/b/mb01.jpg` (see absoluteImage).
   */
  image_base_url?: string;
  /**
   * The defaults in effect for a marketplace that has values of its own (a profile section, LISTINGS_EBAY_GB_...),
   * by its flat id in upper case: whole, the general values already folded in. A marketplace not here takes the
   * general values above.
   */
  per_marketplace?: Readonly<Record<string, MarketplaceDefaults>>;
}

/** The defaults a marketplace may have of its own (see ListingDefaults.per_marketplace). */
export type MarketplaceDefaults = Pick<ListingDefaults, 'merchant_location_key' | 'fulfillment_policy_id' | 'payment_policy_id' | 'return_policy_id' | 'condition'>;

/**
 * One input row made ready: a request to send, the issues that keep it from the network, or a row that is not a
 * listing at all (`skipped`, with the reason). `rows` is the draft's count of input rows when a preset folded several
 * into this listing (absent means 1; 0 for the second and later marketplaces of a fanned-out row). A listing's
 * identity is (marketplace, SKU): `marketplace` is the one the request goes to (in the shape's form), or the row's
 * value when it could not be used, absent when there is none.
 */
export type PreparedRow =
  | {
      kind: 'ready';
      location: Location;
      sku: string;
      request: ListingRequest;
      rows?: number;
      marketplace?: string;
      /**
       * Where the request comes from, when the same body may legitimately be sent again as a new change (a stream's
       * topic, partition and offset): the Idempotency-Key then covers it too, so only a replay of this very message
       * is answered from the key. Without it the key depends on the body alone.
       */
      idempotencyScope?: string;
    }
  | { kind: 'invalid'; location: Location; sku?: string; issues: FieldIssue[]; rows?: number; marketplace?: string }
  | { kind: 'skipped'; location: Location; sku?: string; reason: string; rows?: number; marketplace?: string };
