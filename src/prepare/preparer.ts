import type { Draft, DraftValues } from '../catalog/types.js';
import type { ListingDefaults, PreparedRow } from './types.js';
import type { FieldIssue } from '../contract/issues.js';
import { issuesFromZod } from '../contract/issues.js';
import { DEFAULTABLE_FIELDS, requestSchemaFor, type ListingRequest } from '../contract/schemas.js';
import { formatLocation } from '../errors.js';
import { imageIssues, marketplaceFor } from './checks.js';
import { SkuRegistry } from './sku-registry.js';

/** Turns one draft into a request ready to send, or the issues that keep it from the network. */
export type Preparer = (draft: Draft) => PreparedRow;

function flag(field: string): string {
  return `--${field.replace(/_/g, '-')}`;
}

function required(field: string, savedDefaultsMatter: boolean): FieldIssue {
  const where = `set it in the row, with ${flag(field)} or in the profile`;
  return { path: field, message: savedDefaultsMatter ? `is required (no saved defaults; ${where})` : `is required (${where})` };
}

function resolveMarketplace(values: DraftValues, defaults: ListingDefaults, issues: FieldIssue[]): string | undefined {
  const value = values.marketplace ?? defaults.marketplace;
  if (value === undefined) {
    issues.push(required('marketplace', false));
    return undefined;
  }
  return marketplaceFor(defaults.shape, value, issues);
}

/** The flat body: the row's values over the defaults; the location key and policy ids per rules 1 and 2. */
function flatBody(values: DraftValues, defaults: ListingDefaults, issues: FieldIssue[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (values.images_source !== undefined) {
    issues.push(...imageIssues(values.images_source));
    body.images_source = values.images_source;
  }
  if (values.sku !== undefined) body.sku = values.sku;
  const marketplace = resolveMarketplace(values, defaults, issues);
  if (marketplace !== undefined) body.marketplace = marketplace;
  for (const field of DEFAULTABLE_FIELDS) {
    const value = values[field] ?? defaults[field];
    if (value !== undefined) body[field] = value;
    else if (!defaults.saved_defaults) issues.push(required(field, true));
  }
  const overrides = { ...values.overrides };
  if (overrides.condition === undefined && defaults.condition !== undefined) overrides.condition = defaults.condition;
  if (Object.keys(overrides).length > 0) body.overrides = overrides;
  return body;
}

/**
 * The wrapped body: `{marketplace, payload: {sku, title}}`, the only fields the contract shows for this shape (so no
 * images, overrides, location key or policy ids are sent with it).
 */
function wrappedBody(values: DraftValues, defaults: ListingDefaults, issues: FieldIssue[]): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  if (values.sku !== undefined) payload.sku = values.sku;
  if (values.title !== undefined) payload.title = values.title;
  const marketplace = resolveMarketplace(values, defaults, issues);
  return { ...(marketplace === undefined ? {} : { marketplace }), payload };
}

function invalid(draft: Draft, issues: FieldIssue[]): PreparedRow {
  return {
    kind: 'invalid',
    location: draft.location,
    ...(draft.values.sku === undefined ? {} : { sku: draft.values.sku }),
    issues,
    ...(draft.rows === undefined ? {} : { rows: draft.rows }),
  };
}

/**
 * A preparer for one run: defaults are applied per row (the row's value wins over `defaults`, which already hold
 * flag > env > profile > built-in), the request of the chosen shape is built and checked against the contract's
 * schema and the extra rules (absolute http(s) image URLs, the marketplace's form), and a SKU seen earlier in the run
 * makes the later row invalid, pointing at the first. Keep one preparer for all the sources of a run.
 */
export function createPreparer(defaults: ListingDefaults): Preparer {
  const skus = new SkuRegistry();
  const schema = requestSchemaFor(defaults.shape, defaults.saved_defaults);
  return (draft) => {
    // An unreadable record has no values to check.
    if (draft.issues.some((issue) => issue.path === '(record)')) return invalid(draft, draft.issues);
    const issues = [...draft.issues];
    const { values } = draft;
    const body = defaults.shape === 'wrapped' ? wrappedBody(values, defaults, issues) : flatBody(values, defaults, issues);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const reported = new Set(issues.map((issue) => issue.path));
      for (const issue of issuesFromZod(parsed.error)) {
        // The catalog names the wrapped payload's fields plainly.
        const path = issue.path.replace(/^payload\./, '');
        if (!reported.has(path)) issues.push({ path, message: issue.message });
      }
    }
    if (values.sku !== undefined) {
      const first = skus.firstSeen(values.sku, draft.location);
      if (first !== undefined) issues.push({ path: 'sku', message: `duplicate SKU; first seen at ${formatLocation(first)}` });
    }
    if (issues.length > 0 || !parsed.success || values.sku === undefined) return invalid(draft, issues);
    const request: ListingRequest = parsed.data;
    return { kind: 'ready', location: draft.location, sku: values.sku, request, ...(draft.rows === undefined ? {} : { rows: draft.rows }) };
  };
}
