import type { Draft, DraftValues } from '../catalog/types.js';
import type { ListingDefaults, MarketplaceDefaults, PreparedRow } from './types.js';
import type { FieldIssue } from '../contract/issues.js';
import { issuesFromZod } from '../contract/issues.js';
import { DEFAULTABLE_FIELDS, requestSchemaFor, type ListingRequest } from '../contract/schemas.js';
import { formatLocation, libraryName, type NameSetting } from '../errors.js';
import { addImageIssues, imagePathHint, imagesUnder, marketplaceFor } from './checks.js';
import { isCleanFlatRequest, isCleanWrappedRequest } from './clean-request.js';
import { isFlatMarketplace, isWrappedMarketplace } from '../contract/marketplace.js';
import { SkuRegistry } from './sku-registry.js';

type RequestSchema = ReturnType<typeof requestSchemaFor>;

/** How a preparer treats a run as a whole. */
export interface PreparerOptions {
  /** `invalid` (default): a SKU seen earlier in the run makes the row invalid. `allowed`: each row is a change. */
  repeatedSkus?: 'invalid' | 'allowed';
  /** How a row's issue names the setting that would fill a missing field; the CLI passes its flag names. */
  name?: NameSetting;
}

/** Turns one draft into a request ready to send, or the issues that keep it from the network. */
export type Preparer = (draft: Draft) => PreparedRow;

/** The row's marketplace (or the default) in the shape's form; a missing or unusable one adds its issue. */
type MarketplaceResolver = (values: DraftValues, issues: FieldIssue[]) => string | undefined;

function required(field: string, savedDefaultsMatter: boolean, name: NameSetting): FieldIssue {
  const where = `set it in the row, with ${name(field)} or in the profile`;
  return { path: field, message: savedDefaultsMatter ? `is required (no saved defaults; ${where})` : `is required (${where})` };
}

/** The defaults of the marketplace a row goes to (its own, when it has some; else the general ones). */
type DefaultsOf = (marketplace: string | undefined) => MarketplaceDefaults;

/**
 * The flat body: the row's values over the defaults of its marketplace; the location key and policy ids per rules
 * 1 and 2; relative image paths put under the image base URL.
 */
function flatBody(values: DraftValues, run: ListingDefaults, resolveMarketplace: MarketplaceResolver, defaultsOf: DefaultsOf, issues: FieldIssue[], name: NameSetting, pathHint: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const savedDefaults = run.saved_defaults;
  if (values.images_source !== undefined) {
    const base = run.image_base_url;
    const images = imagesUnder(values.images_source, base);
    addImageIssues(images, issues, base === undefined ? pathHint : undefined);
    body.images_source = images;
  }
  if (values.sku !== undefined) body.sku = values.sku;
  const marketplace = resolveMarketplace(values, issues);
  if (marketplace !== undefined) body.marketplace = marketplace;
  const defaults = defaultsOf(marketplace);
  for (const field of DEFAULTABLE_FIELDS) {
    const value = values[field] ?? defaults[field];
    if (value !== undefined) body[field] = value;
    else if (!savedDefaults) issues.push(required(field, true, name));
  }
  const overrides = overridesOf(values.overrides, defaults.condition);
  if (overrides !== undefined) body.overrides = overrides;
  return body;
}

function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/**
 * The row's overrides with the default condition when the row has none; undefined when that leaves nothing. The
 * schema's output puts `condition` first, so an added condition goes first here too (then a clean body needs no
 * parse). A plain object is used as it is when nothing is added; anything else is copied, as it always was.
 */
function overridesOf(own: Record<string, unknown> | undefined, condition: string | undefined): Record<string, unknown> | undefined {
  const plain = own === undefined || Object.getPrototypeOf(own) === Object.prototype;
  if (condition !== undefined && (own === undefined || (plain && !Object.hasOwn(own, 'condition')))) return { condition, ...own };
  if (own === undefined) return undefined;
  if (!plain) {
    const copy = { ...own };
    if (copy.condition === undefined && condition !== undefined) copy.condition = condition;
    return Object.keys(copy).length > 0 ? copy : undefined;
  }
  if (own.condition === undefined && condition !== undefined) return { ...own, condition };
  return hasKeys(own) ? own : undefined;
}

/**
 * The wrapped body: `{marketplace, payload: {sku, title}}`, the only fields the contract shows for this shape (so no
 * images, overrides, location key or policy ids are sent with it).
 */
function wrappedBody(values: DraftValues, marketplace: string | undefined): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  if (values.sku !== undefined) payload.sku = values.sku;
  if (values.title !== undefined) payload.title = values.title;
  return marketplace === undefined ? { payload } : { marketplace, payload };
}

function invalid(draft: Draft, issues: FieldIssue[], marketplace?: string): PreparedRow {
  const sku = draft.values.sku;
  const row: PreparedRow =
    sku === undefined ? { kind: 'invalid', location: draft.location, issues } : { kind: 'invalid', location: draft.location, sku, issues };
  if (draft.rows !== undefined) row.rows = draft.rows;
  if (marketplace !== undefined) row.marketplace = marketplace;
  return row;
}

function skipped(draft: Draft, reason: string): PreparedRow {
  const sku = draft.values.sku;
  const row: PreparedRow = sku === undefined ? { kind: 'skipped', location: draft.location, reason } : { kind: 'skipped', location: draft.location, sku, reason };
  if (draft.rows !== undefined) row.rows = draft.rows;
  return row;
}

function unreadable(issues: readonly FieldIssue[]): boolean {
  for (const issue of issues) if (issue.path === '(record)') return true;
  return false;
}

/**
 * A preparer for one run: defaults are applied per row (the row's value wins over `defaults`, which already hold
 * flag > env > profile > built-in), the request of the chosen shape is built and checked against the contract's
 * schema and the extra rules (absolute http(s) image URLs, the marketplace's form), and a listing seen earlier in the
 * run (the same SKU on the same marketplace: a listing's identity is the pair) makes the later row invalid, pointing
 * at the first. A marketplace with defaults of its own (`defaults.per_marketplace`) gives its rows those. Keep one
 * preparer for all the sources of a run.
 */
export function createPreparer(defaults: ListingDefaults, options: PreparerOptions = {}): Preparer {
  // A stream sends one SKU again and again as it changes: there a repeated SKU is an update, not a duplicate.
  const skus = options.repeatedSkus === 'allowed' ? undefined : new SkuRegistry();
  const name = options.name ?? libraryName;
  // Worded once: a row's images are checked on every row.
  const pathHint = imagePathHint(name);
  // Only a row that fails the hand-written check needs the schema, and so zod; a clean catalog never loads it.
  let schema: RequestSchema | undefined;
  const wrapped = defaults.shape === 'wrapped';
  // The last marketplace value seen and its form for the shape (a catalog rarely has more than a few).
  let seenMarketplace: string | undefined;
  let shapedMarketplace = '';
  let shapedIsRight = false;
  // A marketplace's own defaults (profile sections): looked up once for the rows of one marketplace in a row.
  const perMarketplace = defaults.per_marketplace;
  let defaultsFor: string | undefined;
  let marketplaceDefaults: MarketplaceDefaults = defaults;
  const defaultsOf: DefaultsOf = (marketplace) => {
    if (perMarketplace === undefined || marketplace === undefined) return defaults;
    if (marketplace !== defaultsFor) {
      defaultsFor = marketplace;
      marketplaceDefaults = perMarketplace[marketplace] ?? defaults;
    }
    return marketplaceDefaults;
  };

  const resolveMarketplace: MarketplaceResolver = (values, issues) => {
    const value = values.marketplace ?? defaults.marketplace;
    if (value === undefined) {
      issues.push(required('marketplace', false, name));
      return undefined;
    }
    if (value === seenMarketplace) return shapedMarketplace;
    const before = issues.length;
    const shaped = marketplaceFor(defaults.shape, value, issues);
    // Only a value that gave no issue is remembered, so that every row with it is told.
    if (issues.length === before) {
      seenMarketplace = value;
      shapedMarketplace = shaped;
      shapedIsRight = wrapped ? isWrappedMarketplace(shaped) : isFlatMarketplace(shaped);
    }
    return shaped;
  };

  function isClean(body: Record<string, unknown>): boolean {
    // A marketplace already known to have the shape's form spares the regex on every row.
    const known = body.marketplace === shapedMarketplace && shapedIsRight ? shapedMarketplace : undefined;
    return wrapped ? isCleanWrappedRequest(body, known) : isCleanFlatRequest(body, defaults.saved_defaults, known);
  }

  return (draft) => {
    if (draft.skip !== undefined) return skipped(draft, draft.skip);
    // An unreadable record has no values to check.
    if (draft.issues.length > 0 && unreadable(draft.issues)) return invalid(draft, draft.issues);
    const issues = draft.issues.slice();
    const { values } = draft;
    const body = wrapped ? wrappedBody(values, resolveMarketplace(values, issues)) : flatBody(values, defaults, resolveMarketplace, defaultsOf, issues, name, pathHint);
    // The listing's identity is (marketplace, SKU): the marketplace as sent (or as the row gave it, when unusable).
    const marketplace = body.marketplace as string | undefined;
    let request: ListingRequest | undefined;
    // A clean body is what the schema would output for it; only the others are parsed (which also words the issues).
    if (issues.length === 0 && isClean(body)) request = body as ListingRequest;
    else request = parse((schema ??= requestSchemaFor(defaults.shape, defaults.saved_defaults)), body, issues);
    if (values.sku !== undefined && skus !== undefined) {
      const first = skus.firstSeen(values.sku, draft.location, marketplace);
      if (first !== undefined) issues.push({ path: 'sku', message: `duplicate SKU; first seen at ${formatLocation(first)}` });
    }
    if (issues.length > 0 || request === undefined || values.sku === undefined) return invalid(draft, issues, marketplace);
    const row: PreparedRow = { kind: 'ready', location: draft.location, sku: values.sku, request, marketplace: request.marketplace };
    if (draft.rows !== undefined) row.rows = draft.rows;
    return row;
  };
}

/** The schema's output for `body`, or undefined after adding its issues (those not already reported for the field). */
function parse(schema: RequestSchema, body: Record<string, unknown>, issues: FieldIssue[]): ListingRequest | undefined {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const reported = new Set(issues.map((issue) => issue.path));
  for (const issue of issuesFromZod(parsed.error)) {
    // The catalog names the wrapped payload's fields plainly.
    const path = issue.path.replace(/^payload\./, '');
    if (!reported.has(path)) issues.push({ path, message: issue.message });
  }
  return undefined;
}
