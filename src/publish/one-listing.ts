import type { Draft } from '../catalog/types.js';
import { classifyFailure } from '../client/classify.js';
import type { ListingsClient } from '../client/listings-client.js';
import { skuOf, type ListingRequest, type ListingResponse } from '../contract/schemas.js';
import { ApiError, UsageError, type NameSetting, type Setting, type SettingText } from '../errors.js';
import { stringifyJson } from '../json-number.js';
import { createPreparer } from '../prepare/index.js';
import type { ListingDefaults } from '../prepare/types.js';
import { requireOneListingSettings } from '../prepare/missing-settings.js';
import { imageProblem } from '../prepare/checks.js';
import type { FieldIssue } from '../contract/issues.js';
import { idempotencyKey } from './idempotency.js';
import { echoMismatch } from './echo.js';

/** One listing, given by its fields rather than read from a catalog (`listings create SKU`): checked, then sent. */

/** The fields of the one listing. */
export interface OneListingFields {
  sku: string;
  title?: string | undefined;
  images?: readonly string[] | undefined;
  /** The settings given for this one listing (the CLI's flags), beyond the defaults every run shares. */
  givenSettings?: readonly string[] | undefined;
}

/**
 * What each shape's request has no place for, of what one listing may be given: the flat body has no title (the
 * service derives it), the wrapped one carries the SKU and the title only.
 */
const NOT_SENT: Record<ListingDefaults['shape'], readonly string[]> = {
  flat: ['title'],
  wrapped: ['images', 'image_base_url', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id', 'condition'],
};

/**
 * A UsageError when the listing was given something its shape's request would leave out: a title the flat body has
 * no place for, images or a policy for the wrapped body, each of which the listing would otherwise be created
 * without, in silence.
 */
function refuseUnsent(fields: OneListingFields, shape: ListingDefaults['shape']): void {
  const given = [...(fields.title === undefined ? [] : ['title']), ...(fields.images !== undefined && fields.images.length > 0 ? ['images'] : []), ...(fields.givenSettings ?? [])];
  const unsent = given.filter((key) => NOT_SENT[shape].includes(key));
  if (unsent.length === 0) return;
  const other = shape === 'flat' ? 'wrapped' : 'flat';
  throw new UsageError((name) => `the ${shape} request has no place for ${unsent.map(name).join(', ')}: the listing would be created without ${unsent.length === 1 ? 'it' : 'them'}`, {
    hint: (name) => `leave ${unsent.length === 1 ? 'it' : 'them'} out, or send the ${other} shape (${name('shape')} ${other}), which carries ${shape === 'flat' ? 'the title' : 'images, the location key, the policies and the condition'}`,
    setting: { key: unsent[0]! },
  });
}

/**
 * A problem of the one listing. `given`: it is about a value given as a setting (an image: `images`, the value as
 * given), and `problem` says what is wrong without the value, for a caller that names the setting its own way
 * (the CLI: `--image a.jpg`). `path` and `message` name the request's field, as for a catalog row.
 */
export interface OneListingIssue extends FieldIssue {
  given?: { setting: Required<Setting>; problem: SettingText };
}

/** An issue of the request's `images_source[i]` said of the image given: the request's images are the ones given, in order. */
function asGiven(issue: FieldIssue, images: readonly string[], base: string | undefined): OneListingIssue {
  const index = /^images_source\[(\d+)\]$/.exec(issue.path)?.[1];
  const value = index === undefined ? undefined : images[Number(index)];
  if (value === undefined) return issue;
  return { ...issue, given: { setting: { key: 'images', value }, problem: imageProblem(value, base) ?? (() => issue.message) } };
}

/**
 * The request of one listing, checked locally against the defaults (nothing is sent), or the issues that make it
 * invalid. Defaults that name several marketplaces are a UsageError: one listing goes to one; so is a field given
 * that the shape's request leaves out, and a setting the request needs that no default gives (MissingSettingsError).
 */
export function prepareOneListing(fields: OneListingFields, defaults: ListingDefaults, name?: NameSetting): { request: ListingRequest } | { issues: OneListingIssue[] } {
  const several = defaults.marketplaces;
  if (several !== undefined) {
    throw new UsageError(`create sends one listing, to one marketplace; the marketplace setting names ${several.length} (${several.join(', ')})`, {
      hint: (name) => `pass one with ${name('marketplace')}, e.g. ${name('marketplace')} ${several[0] ?? 'EBAY_US'} (or publish a catalog to all of them)`,
      setting: { key: 'marketplace' },
    });
  }
  refuseUnsent(fields, defaults.shape);
  requireOneListingSettings(defaults);
  const values: Draft['values'] = { sku: fields.sku };
  if (fields.images !== undefined && fields.images.length > 0) values.images_source = [...fields.images];
  if (fields.title !== undefined) values.title = fields.title;
  const prepared = createPreparer(defaults, name === undefined ? {} : { name })({ location: { source: 'command line' }, values, issues: [] });
  if (prepared.kind === 'ready') return { request: prepared.request };
  if (prepared.kind !== 'invalid') return { issues: [{ path: '(record)', message: prepared.reason }] };
  return { issues: prepared.issues.map((issue) => asGiven(issue, fields.images ?? [], defaults.image_base_url)) };
}

/**
 * Sends one listing request with its idempotency key. A rejected item (a 4xx that is the listing's fault) is
 * returned; every other failure (the service's: auth, endpoint, and pushback or a transient 4xx such as 429 or 408,
 * which say nothing of the listing) is thrown.
 */
export async function sendOneListing(client: ListingsClient, request: ListingRequest): Promise<{ status: number; listing: ListingResponse } | { rejected: ApiError }> {
  const body = stringifyJson(request);
  try {
    const result = await client.postListingJson(body, { idempotencyKey: idempotencyKey(body) });
    const mismatch = echoMismatch(skuOf(request), result);
    if (mismatch !== undefined) throw mismatch;
    return result;
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500 && classifyFailure(error) === 'row') return { rejected: error };
    throw error;
  }
}
