import type { FieldIssue } from '../contract/issues.js';
import type { SettingText } from '../errors.js';
import type { Shape } from '../contract/schemas.js';
import { isFlatMarketplace, isWrappedMarketplace, toWrappedMarketplace } from '../contract/marketplace.js';

function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

/** Where the host starts when `value` begins with `http://` or `https://` in lower case; 0 otherwise. */
function plainSchemeEnd(value: string): number {
  if (value.charCodeAt(0) !== 0x68 || value.charCodeAt(1) !== 0x74 || value.charCodeAt(2) !== 0x74 || value.charCodeAt(3) !== 0x70) return 0;
  const colon = value.charCodeAt(4) === 0x73 ? 5 : 4;
  return value.charCodeAt(colon) === 0x3a && value.charCodeAt(colon + 1) === 0x2f && value.charCodeAt(colon + 2) === 0x2f ? colon + 3 : 0;
}

/**
 * True when the host at `start` is a plain DNS name the URL parser takes as it is: labels of lower-case letters,
 * digits and single hyphens, the last beginning with a letter (so it cannot be read as an IPv4 address), ended by
 * the end of the value or by `/`, `?` or `#`. What follows (path, query, fragment) can never make parsing fail.
 */
function isPlainHost(value: string, start: number): boolean {
  let label = start;
  let i = start;
  for (; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) continue;
    // `--` can mark a punycode label (`xn--`), which the parser decodes and may refuse.
    if (code === 0x2d && value.charCodeAt(i - 1) !== 0x2d) continue;
    if (code === 0x2e && i > label) {
      label = i + 1;
      continue;
    }
    if (code === 0x2f || code === 0x3f || code === 0x23) break;
    return false;
  }
  const first = value.charCodeAt(label);
  return i > label && first >= 0x61 && first <= 0x7a;
}

/** http:// or https:// with a host; `http:/x` and `//x` are not taken, though URL parsing would repair them. */
export function isAbsoluteHttpUrl(value: string): boolean {
  // Most catalog URLs are plainly fine; the URL parser (costly, and it throws) is asked about the rest.
  const host = plainSchemeEnd(value);
  if (host > 0 && isPlainHost(value, host)) return true;
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/** A scheme (`https:`, `ftp:`, `data:`, `c:`): a value with one is not a path relative to the image base URL. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * An image as sent: an absolute URL as it is; a path put under `base`, one slash between them
 * (`https://shop.example.com/media/catalog/product` + `/m/b/mb01.jpg`, Magento's form, or `m/b/mb01.jpg`); a
 * scheme-relative `//cdn.example.com/a.jpg` takes the base's scheme. Anything else with a scheme is left for the
 * check to refuse.
 */
export function absoluteImage(image: string, base: string): string {
  if (isAbsoluteHttpUrl(image) || SCHEME.test(image)) return image;
  if (image.startsWith('//')) return `${base.slice(0, base.indexOf(':') + 1)}${image}`;
  return `${base.replace(/\/+$/, '')}/${image.replace(/^\/+/, '')}`;
}

/** The images as sent: relative paths put under the image base URL when there is one (absoluteImage). */
export function imagesUnder(images: string[], base: string | undefined): string[] {
  if (base === undefined) return images;
  let out: string[] | undefined;
  for (let index = 0; index < images.length; index++) {
    const image = images[index]!;
    const absolute = absoluteImage(image, base);
    if (absolute !== image) (out ??= images.slice())[index] = absolute;
  }
  return out ?? images;
}

const NOT_ABSOLUTE = 'not an absolute http(s) URL';

/** What an image without a scheme needs when no image base URL is set. */
export const imagePathHint: SettingText = (name) => `a path: give the address it is under with ${name('image_base_url')} or in the profile`;

/** The hint for an image: `pathHint` for a value without a scheme, which an image base URL makes absolute (absoluteImage). */
function hintFor(url: string, pathHint: string | undefined): string {
  return pathHint !== undefined && !SCHEME.test(url) ? ` (${pathHint})` : '';
}

/**
 * What is wrong with an image given under `base` (an image base URL, or none), without the image itself, for a
 * caller that shows it its own way (`--image a.jpg`); undefined when it is sent as an absolute http(s) URL.
 */
export function imageProblem(url: string, base: string | undefined): SettingText | undefined {
  const image = base === undefined ? url : absoluteImage(url, base);
  if (isAbsoluteHttpUrl(image)) return undefined;
  return (name) => `${NOT_ABSOLUTE}${hintFor(image, base === undefined ? imagePathHint(name) : undefined)}`;
}

/**
 * Appends an issue naming the image for each image that is not an absolute http(s) URL. `pathHint`, when given, is
 * added to the issue of a value without a scheme (`/m/b/mb01.jpg`, `m/b/mb01.jpg`, `//cdn.example.com/a.jpg`).
 */
export function addImageIssues(images: readonly string[], issues: FieldIssue[], pathHint?: string): void {
  for (let index = 0; index < images.length; index++) {
    const url = images[index];
    if (url === undefined || isAbsoluteHttpUrl(url)) continue;
    issues.push({ path: `images_source[${index}]`, message: `${NOT_ABSOLUTE}: ${quoted(url)}${hintFor(url, pathHint)}` });
  }
}

/**
 * The marketplace in the form the shape needs, converted when that is unambiguous (`EBAY_US` -> `ebay` for
 * wrapped, `ebay_us` -> `EBAY_US` for flat). A value that cannot be converted is returned as it is for the schema to
 * reject, except the wrapped form given to the flat shape, which gets its own message.
 */
export function marketplaceFor(shape: Shape, value: string, issues: FieldIssue[]): string {
  // The flag and the setting take a list; a row names one marketplace, and a list in it matches no form.
  if (value.includes(',')) {
    issues.push({
      path: 'marketplace',
      message: `${quoted(value)} names several marketplaces; a row names one: give a row to each, or leave the column empty and list them in the marketplace setting (a flag, LISTINGS_MARKETPLACE or the profile), which sends every row to each`,
    });
    return value;
  }
  if (shape === 'wrapped') return toWrappedMarketplace(value) ?? toWrappedMarketplace(value.toLowerCase()) ?? value;
  if (isFlatMarketplace(value)) return value;
  const upper = value.toUpperCase();
  if (isFlatMarketplace(upper)) return upper;
  if (isWrappedMarketplace(value)) {
    issues.push({
      path: 'marketplace',
      message: `${quoted(value)} is the wrapped shape's form; the flat shape needs the upper-case form with a region, e.g. ${upper.length > 80 ? 'EBAY' : upper.replace(/-/g, '_')}_US`,
    });
  }
  return value;
}
