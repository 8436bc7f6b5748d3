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
  marketplace?: string;
  merchant_location_key?: string;
  fulfillment_policy_id?: string;
  payment_policy_id?: string;
  return_policy_id?: string;
  condition?: string;
}

/**
 * One input row made ready: a request to send, the issues that keep it from the network, or a row that is not a
 * listing at all (`skipped`, with the reason). `rows` is the draft's count of input rows when a preset folded several
 * into this listing (absent means 1).
 */
export type PreparedRow =
  | { kind: 'ready'; location: Location; sku: string; request: ListingRequest; rows?: number }
  | { kind: 'invalid'; location: Location; sku?: string; issues: FieldIssue[]; rows?: number }
  | { kind: 'skipped'; location: Location; sku?: string; reason: string; rows?: number };
