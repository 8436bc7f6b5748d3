/**
 * The two spellings of a marketplace the service shows: the flat shape uses an upper-case, region-suffixed
 * form (`EBAY_US`), the wrapped shape a lower-case form without a region (`ebay`).
 */
export const FLAT_MARKETPLACE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_[A-Z]{2}$/;
export const WRAPPED_MARKETPLACE = /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$/;

export function isFlatMarketplace(value: string): boolean {
  return FLAT_MARKETPLACE.test(value);
}

export function isWrappedMarketplace(value: string): boolean {
  return WRAPPED_MARKETPLACE.test(value);
}

/** `EBAY_US` -> `ebay`; a value already in wrapped form is returned unchanged. */
export function toWrappedMarketplace(value: string): string | undefined {
  if (isWrappedMarketplace(value)) return value;
  if (!isFlatMarketplace(value)) return undefined;
  return value.slice(0, value.lastIndexOf('_')).toLowerCase();
}

/**
 * `ebay` + `US` -> `EBAY_US`; a value already in flat form is returned unchanged. Without a region the wrapped
 * form is ambiguous, so the answer is undefined.
 */
export function toFlatMarketplace(value: string, region?: string): string | undefined {
  if (isFlatMarketplace(value)) return value;
  if (!isWrappedMarketplace(value) || region === undefined || !/^[A-Za-z]{2}$/.test(region)) return undefined;
  return `${value.replace(/-/g, '_').toUpperCase()}_${region.toUpperCase()}`;
}
