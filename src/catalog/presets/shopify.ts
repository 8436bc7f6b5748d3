/**
 * `--preset shopify`: Shopify's product CSV (the admin export and the import template).
 *
 * Shape of the export: a product spans consecutive rows sharing a Handle. Its first row carries the product (Title,
 * option names, Google Shopping / Condition) and its first variant; each further variant row carries option values
 * and `Variant ...` cells; extra image rows carry only Handle and Image Src (with Image Position / Alt Text).
 *
 * One listing per variant:
 * - sku: Variant SKU. When it is empty: the Handle for a product with a single variant and no options (Shopify's
 *   `Default Title`); otherwise `<Handle>-<option values>` slugged (`classic-varsity-top-medium`), or
 *   `<Handle>-<n>` (n = the variant's number in the product, from 1) for a variant with no option values.
 * - title: Title, plus the option values for products with options (`Example T-Shirt - Green / S`).
 * - images_source: the variant's Variant Image first, then every Image Src of the product's rows, in row order,
 *   without repeats.
 * - overrides.condition: Google Shopping / Condition: new, used, refurbished -> NEW, USED, REFURBISHED; other text is
 *   passed on as it is; empty leaves it to --condition.
 * - location: the variant's own row.
 * A product whose Status (on its first row; Shopify's 2021+ exports) is other than active (`draft`, `archived`) is not
 * for sale in the shop: each of its variants is reported `skipped`, with why. Without a Status, every product is listed.
 *
 * Counting: one draft per listing. Extra image rows are counted into the product's first listing (`Draft.rows`), so
 * the drafts' rows add up to the rows read.
 *
 * Streaming: the rows of one Handle are contiguous in Shopify exports, so one product at a time is held. A Handle
 * that comes back later starts another product (without a Title); its rows are still reported, and a repeated SKU
 * is caught by prepare's duplicate check.
 */
import type { Draft } from '../types.js';
import type { RecordItem } from '../types.js';
import type { Location } from '../../errors.js';
import { cell, checkedRows, conditionOf, slug, unique } from './cells.js';
import type { PresetKind } from './preset-kind.js';

/** Shopify's product CSV, one line of PRESET_KINDS (src/catalog/presets/index.ts). */
export const shopifyPreset = {
  name: 'shopify',
  label: 'a Shopify product export',
  required: ['Handle', 'Variant SKU'],
  signature: ['Handle', 'Variant SKU'],
  drafts: shopifyDrafts,
} as const satisfies PresetKind;

const OPTION_VALUES = ['Option1 Value', 'Option2 Value', 'Option3 Value'];
const DEFAULT_OPTION = 'Default Title';

interface Variant {
  location: Location;
  sku: string;
  options: string[];
  image: string;
}

interface Product {
  handle: string;
  title: string;
  condition: string;
  /** Status of its first row, empty when the export has none. */
  status: string;
  images: string[];
  variants: Variant[];
  /** Image-only rows, counted into the first listing. */
  extraRows: number;
}

/** Google Shopping's condition words to the upper-case form the CLI's --condition uses; other text unchanged. */
export const shopifyCondition = conditionOf;

function isVariantRow(fields: Record<string, unknown>, variantColumns: readonly string[]): boolean {
  return OPTION_VALUES.some((column) => cell(fields, column) !== '') || variantColumns.some((column) => cell(fields, column) !== '');
}

function variantSku(product: Product, variant: Variant, number: number): string {
  if (variant.sku !== '') return variant.sku;
  if (variant.options.length > 0) return `${product.handle}-${slug(variant.options.join(' '))}`;
  return product.variants.length === 1 ? product.handle : `${product.handle}-${number}`;
}

/** Why a product's variants are not listings: not active in the shop; undefined when they are. */
function skipReason(product: Product): string | undefined {
  if (product.status === '' || product.status.toLowerCase() === 'active') return undefined;
  return `not active in Shopify (Status ${JSON.stringify(product.status)}): only active products are listed`;
}

function* productDrafts(product: Product): Iterable<Draft> {
  const skip = skipReason(product);
  for (const [i, variant] of product.variants.entries()) {
    const title = product.title === '' ? undefined : variant.options.length > 0 ? `${product.title} - ${variant.options.join(' / ')}` : product.title;
    const images = unique([variant.image, ...product.images]);
    const condition = shopifyCondition(product.condition);
    const draft: Draft = {
      location: variant.location,
      values: {
        sku: variantSku(product, variant, i + 1),
        ...(title === undefined ? {} : { title }),
        ...(images.length > 0 ? { images_source: images } : {}),
        ...(condition === undefined ? {} : { overrides: { condition } }),
      },
      issues: [],
    };
    if (i === 0 && product.extraRows > 0) draft.rows = 1 + product.extraRows;
    if (skip !== undefined) draft.skip = skip;
    yield draft;
  }
}

/** The drafts of a product whose rows the source ended inside: one per variant, none sent. */
function* unfinishedDrafts(product: Product): Iterable<Draft> {
  const issues = [{ path: '(record)', message: 'not sent: the source could not be read to the end of this product\'s rows' }];
  for (const [i, variant] of product.variants.entries()) {
    yield { location: variant.location, values: {}, issues, ...(i === 0 && product.extraRows > 0 ? { rows: 1 + product.extraRows } : {}) };
  }
}

function variantOf(fields: Record<string, unknown>, location: Location): Variant {
  return {
    location,
    sku: cell(fields, 'Variant SKU'),
    options: OPTION_VALUES.map((column) => cell(fields, column)).filter((value) => value !== '' && value !== DEFAULT_OPTION),
    image: cell(fields, 'Variant Image'),
  };
}

/** Shopify product rows -> one draft per variant (see the rules at the top of this file). */
export async function* shopifyDrafts(records: AsyncIterable<RecordItem>): AsyncIterable<Draft> {
  let product: Product | undefined;
  let variantColumns: string[] | undefined;
  try {
    for await (const row of checkedRows(shopifyPreset, records)) {
      if (row.draft !== undefined) {
        yield row.draft;
        continue;
      }
      const { fields, location } = row;
      variantColumns ??= Object.keys(fields).filter((column) => column.startsWith('Variant ') && column !== 'Variant Image');
      const handle = cell(fields, 'Handle');
      if (handle === '') {
        yield { location, values: {}, issues: [{ path: 'Handle', message: 'is empty: every row of a Shopify export names its product' }] };
        continue;
      }
      const image = cell(fields, 'Image Src');
      if (product?.handle === handle) {
        if (isVariantRow(fields, variantColumns)) product.variants.push(variantOf(fields, location));
        else product.extraRows++;
        if (image !== '') product.images.push(image);
        continue;
      }
      if (product !== undefined) yield* productDrafts(product);
      product = {
        handle,
        title: cell(fields, 'Title'),
        condition: cell(fields, 'Google Shopping / Condition'),
        status: cell(fields, 'Status'),
        images: image === '' ? [] : [image],
        variants: [variantOf(fields, location)],
        extraRows: 0,
      };
    }
  } catch (error) {
    // The source could not be read to its end: the rows of the product being read are reported, not sent (its
    // other rows, more variants or images, may be in the part that was not read).
    if (product !== undefined) yield* unfinishedDrafts(product);
    throw error;
  }
  if (product !== undefined) yield* productDrafts(product);
}
