import { hash } from 'node:crypto';
import {
  isWrappedRequest,
  issuesFromZod,
  requestSchemaFor,
  type FlatListingRequest,
  type ListingRequest,
  type WrappedListingRequest,
} from '../contract/index.js';
import { JsonDepthError, JsonDuplicateKeyError, MAX_JSON_DEPTH, parseJsonRecord } from '../json-text.js';

/** An error body as the sandbox sends it: `{"error":{"code","message","details"?}}`. */
export interface SandboxErrorBody {
  error: { code: string; message: string; details?: { field: string; message: string }[] };
}

/** What a listing body deserves: a created listing, or a 400 with the fields at fault. */
export type ListingVerdict =
  | { ok: true; marketplace: string; sku: string; listing: Record<string, unknown> }
  | { ok: false; error: SandboxErrorBody };

const MAX_LISTED = 5;

function invalid(message: string, details: { field: string; message: string }[] = []): ListingVerdict {
  return { ok: false, error: { error: { code: 'invalid_request', message, details } } };
}

/** `item_color` -> `Item Color`: the way a marketplace names an item attribute. */
function attributeName(key: string): string {
  return key
    .split(/[_\s-]+/)
    .filter((word) => word !== '')
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join(' ');
}

function listingId(marketplace: string, sku: string): string {
  return `lst_${hash('sha1', `${marketplace}\u0000${sku}`, 'hex').slice(0, 16)}`;
}

function flatListing(request: FlatListingRequest): Record<string, unknown> {
  const { condition, ...others } = request.overrides ?? {};
  const specifics = condition === undefined ? ['Marketplace'] : ['Condition', 'Marketplace'];
  for (const key of Object.keys(others)) specifics.push(attributeName(key));
  if (request.images_source?.length) specifics.push('Images');
  return {
    sku: request.sku,
    status: 'ready',
    title: [request.sku, condition, request.marketplace].filter((part) => part !== undefined).join(' - '),
    item_specifics: specifics,
    listing_id: listingId(request.marketplace, request.sku),
    marketplace: request.marketplace,
  };
}

function wrappedListing(request: WrappedListingRequest): Record<string, unknown> {
  const specifics = ['Marketplace'];
  for (const key of Object.keys(request.payload)) {
    if (key !== 'sku' && key !== 'title') specifics.push(attributeName(key));
  }
  return {
    sku: request.payload.sku,
    status: 'ready',
    title: request.payload.title,
    item_specifics: specifics,
    listing_id: listingId(request.marketplace, request.payload.sku),
    marketplace: request.marketplace,
  };
}

/**
 * Judge a request body with the contract's own schemas (wrapped when it has `payload`, else flat) and derive the
 * listing deterministically from it, so the same body always gets the same answer.
 */
export function judgeListing(text: string, savedDefaults: boolean): ListingVerdict {
  let body: unknown;
  try {
    // As the client reads what comes from outside: bounded depth, and a key given twice refused, not the last kept.
    body = parseJsonRecord(text);
  } catch (error) {
    if (error instanceof JsonDepthError) return invalid(`the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (error instanceof JsonDuplicateKeyError) return invalid(`the body ${error.message}`);
    return invalid('the body is not valid JSON');
  }
  // Walked only when the text could spell the key (written plainly or with \u escapes): most bodies cannot.
  const proto = text.includes('__proto__') || text.includes('\\u') ? protoKeyPath(body) : undefined;
  if (proto !== undefined) return invalid(`the body holds the key "__proto__" (at ${proto}), which no field of a listing has`, [{ field: proto, message: 'is not a field of a listing' }]);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return invalid('the body must be a JSON object');
  const parsed = requestSchemaFor(Object.hasOwn(body, 'payload') ? 'wrapped' : 'flat', savedDefaults).safeParse(body);
  if (!parsed.success) return rejected(parsed.error);
  const request: ListingRequest = parsed.data;
  return isWrappedRequest(request)
    ? { ok: true, marketplace: request.marketplace, sku: request.payload.sku, listing: wrappedListing(request) }
    : { ok: true, marketplace: request.marketplace, sku: request.sku, listing: flatListing(request) };
}

/** Where a body holds an own `__proto__` key (which a schema's object would drop in silence), if it does. */
function protoKeyPath(value: unknown): string | undefined {
  const stack: Array<{ node: unknown; path: string }> = [{ node: value, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, inner] of Object.entries(node)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (key === '__proto__' && !Array.isArray(node)) return at;
      stack.push({ node: inner, path: at });
    }
  }
  return undefined;
}

function rejected(error: Parameters<typeof issuesFromZod>[0]): ListingVerdict {
  const details = issuesFromZod(error).map((issue) => ({ field: issue.path, message: issue.message }));
  const listed = details.slice(0, MAX_LISTED).map((detail) => `${detail.field} ${detail.message}`);
  if (details.length > MAX_LISTED) listed.push(`and ${details.length - MAX_LISTED} more`);
  return invalid(`invalid listing request: ${listed.join('; ')}`, details);
}
