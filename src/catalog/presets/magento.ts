/**
 * `--preset magento`: Magento 2's catalog product export (System > Data Transfer > Export, entity Products; the same
 * columns its import reads): sku, store_view_code, attribute_set_code, product_type, name, product_online,
 * base_image, small_image, thumbnail_image, additional_images, configurable_variations, ...
 *
 * One listing per row that is a product of its own in the default scope:
 * - sku: sku; title: name.
 * - images_source: base_image, small_image, thumbnail_image, then additional_images split on commas, without
 *   repeats; `no_selection` (Magento's "no image") is no image. Magento writes paths relative to its media folder
 *   (`/m/b/mb01-blue-0.jpg`): the image base URL setting makes them absolute, in prepare.
 * Rows that are not listings are reported `skipped`, with why:
 * - a row with store_view_code set: it only overrides some values of a product for one store view; the product is
 *   listed from its row of the default scope (store_view_code empty);
 * - product_online other than 1: the product is disabled in Magento;
 * - product_type configurable, bundle or grouped: a container; the simple products it is made of are listed from
 *   their own rows (Magento writes those rows too, before the parent's).
 *
 * Streaming: each row is judged alone; nothing is held between rows.
 */
import type { Draft, DraftValues } from '../types.js';
import type { RecordItem } from '../types.js';
import type { Location } from '../../errors.js';
import { splitList } from '../mapping/values.js';
import { cell, rowByRow, unique } from './cells.js';
import type { PresetKind } from './preset-kind.js';

/** Magento 2's catalog product export, one line of PRESET_KINDS (src/catalog/presets/index.ts). */
export const magentoPreset = {
  name: 'magento',
  label: 'a Magento 2 catalog product export',
  required: ['sku', 'product_type'],
  signature: ['sku', 'store_view_code', 'attribute_set_code', 'product_type'],
  drafts: magentoDrafts,
} as const satisfies PresetKind;

const IMAGE_COLUMNS = ['base_image', 'small_image', 'thumbnail_image'];
/** Magento's value of an image attribute that has no image. */
const NO_IMAGE = 'no_selection';
const CONTAINERS: Readonly<Record<string, string>> = {
  configurable: 'a configurable product is not a listing itself; its simple products are listed from their own rows',
  bundle: 'a bundle product is not a listing itself; the products it bundles are listed from their own rows',
  grouped: 'a grouped product is not a listing itself; the products it groups are listed from their own rows',
};

/** Why a row is not a listing, or undefined when it is one. */
function skipReason(fields: Record<string, unknown>): string | undefined {
  const storeView = cell(fields, 'store_view_code');
  if (storeView !== '') return `a store view's values (store_view_code ${JSON.stringify(storeView)}); the product is listed from its default row`;
  const online = cell(fields, 'product_online');
  if (online !== '' && online !== '1') return `disabled in Magento (product_online ${JSON.stringify(online)})`;
  return CONTAINERS[cell(fields, 'product_type').toLowerCase()];
}

/** The row's images: the three roles, then the additional ones, without repeats and `no_selection`. */
export function magentoImages(fields: Record<string, unknown>): string[] {
  const images = [...IMAGE_COLUMNS.map((column) => cell(fields, column)), ...splitList(cell(fields, 'additional_images'), ',')];
  return unique(images.filter((image) => image !== NO_IMAGE));
}

function valuesOf(fields: Record<string, unknown>): DraftValues {
  const sku = cell(fields, 'sku');
  const title = cell(fields, 'name');
  const images = magentoImages(fields);
  return {
    ...(sku === '' ? {} : { sku }),
    ...(title === '' ? {} : { title }),
    ...(images.length > 0 ? { images_source: images } : {}),
  };
}

/** One Magento 2 product row -> its draft, skipped when it is not a listing (see the rules at the top of this file). */
function magentoDraft(fields: Record<string, unknown>, location: Location): Draft {
  const draft: Draft = { location, values: valuesOf(fields), issues: [] };
  const skip = skipReason(fields);
  if (skip !== undefined) draft.skip = skip;
  return draft;
}

/** Magento 2 product rows -> one draft per row. */
export function magentoDrafts(records: AsyncIterable<RecordItem>): AsyncIterable<Draft> {
  return rowByRow(magentoPreset, records, magentoDraft);
}
