import type { FieldIssue } from '../contract/issues.js';
import type { Shape } from '../contract/schemas.js';
import { isFlatMarketplace, isWrappedMarketplace, toWrappedMarketplace } from '../contract/marketplace.js';

function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

/** http:// or https:// with a host; `http:/x` and `//x` are not taken, though URL parsing would repair them. */
export function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

export function imageIssues(images: readonly string[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  images.forEach((url, index) => {
    if (!isAbsoluteHttpUrl(url)) issues.push({ path: `images_source[${index}]`, message: `not an absolute http(s) URL: ${quoted(url)}` });
  });
  return issues;
}

/**
 * The marketplace in the form the shape needs, converted when that is unambiguous (`EBAY_US` -> `ebay` for
 * wrapped, `ebay_us` -> `EBAY_US` for flat). A value that cannot be converted is returned as it is for the schema to
 * reject, except the wrapped form given to the flat shape, which gets its own message.
 */
export function marketplaceFor(shape: Shape, value: string, issues: FieldIssue[]): string {
  if (shape === 'wrapped') return toWrappedMarketplace(value) ?? toWrappedMarketplace(value.toLowerCase()) ?? value;
  if (isFlatMarketplace(value)) return value;
  const upper = value.toUpperCase();
  if (isFlatMarketplace(upper)) return upper;
  if (isWrappedMarketplace(value)) {
    issues.push({
      path: 'marketplace',
      message: `${quoted(value)} is the wrapped shape's form; the flat shape needs the upper-case form with a region, e.g. ${upper.replace(/-/g, '_')}_US`,
    });
  }
  return value;
}
