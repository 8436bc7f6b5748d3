import type { CreateListingResult } from '../client/listings-client.js';
import { ApiError } from '../errors.js';
import { printable } from '../printable.js';
import { redact } from '../secrets.js';

/** The most of an echoed SKU shown in a message: a real one is a few dozen characters. */
const MAX_SKU_SHOWN = 100;

function shown(sku: string): string {
  const safe = printable(redact(sku), { lines: false });
  return `"${safe.length <= MAX_SKU_SHOWN ? safe : `${safe.slice(0, MAX_SKU_SHOWN - 1)}…`}"`;
}

/**
 * The error for an accepted answer that describes another listing than the one sent, as an answer that does not
 * match the contract is one: its `sku` is the echo of the item's SKU, so another one (a service that cut or changed
 * it, answers mixed up on the way) means the listing was not made as sent. Undefined when the echo is the SKU sent.
 */
export function echoMismatch(sentSku: string, result: CreateListingResult): ApiError | undefined {
  const echoed = result.listing.sku;
  if (echoed === sentSku) return undefined;
  return new ApiError(result.status, `HTTP ${result.status}: the answer is for SKU ${shown(echoed)}, not ${shown(sentSku)}: the listing was not made as sent`, undefined);
}
