/**
 * `--preset woocommerce`: WooCommerce's product CSV export (the built-in exporter, WooCommerce 3.1+; columns ID,
 * Type, SKU, Name, Images, Parent, Attribute N name, Attribute N value(s), ...).
 *
 * One listing per simple product and per variation:
 * - Type is a comma-separated list (`simple, virtual`); `variable` rows are parents, `variation` rows their
 *   variations, `grouped` rows containers; anything else (simple, external, empty) is a product of its own.
 * - A variation takes its own SKU, Name and Images; its parent (Parent = `id:NN` or the parent's SKU) adds its
 *   images after the variation's own, and gives the title `<parent Name> - <attribute values>` when the variation
 *   has no Name. A variation without a SKU gets `<parent SKU>-<attribute values>` slugged (`<parent SKU>-<ID>` when it
 *   has no attribute values), when the parent has a SKU; otherwise it is reported without one.
 * - images_source: Images split on commas.
 * - A `variable` row is not a listing itself when it has variations; one without any is listed as a product of its
 *   own, at the end of the catalog (only then is it known to have none).
 * - A `grouped` row is reported `skipped`: it is not a listing itself, and the products it groups are listed from
 *   their own rows.
 * - A row whose Published is other than 1 is not for sale in the shop (the exporter writes -1 for a draft, 0 for a
 *   private product or a disabled variation): reported `skipped`, with why; so is a variation whose parent is. An
 *   export without the column lists every product.
 *
 * Counting: one draft per listing; a variable parent row is counted into its first variation's draft (Draft.rows),
 * so the drafts' rows add up to the rows read.
 *
 * Memory: the exporter writes rows in ID order, so a variation comes after its parent but not always right after
 * it. The name, SKU and images of each variable parent are therefore kept for the whole run: memory grows with the
 * number of variable products (a few hundred bytes each), not with the number of rows.
 */
import type { Draft, DraftValues } from '../types.js';
import type { RecordItem } from '../types.js';
import type { Location } from '../../errors.js';
import { cell, checkedRows, slug, unique } from './cells.js';
import type { PresetKind } from './preset-kind.js';
import { splitList } from '../mapping/values.js';
import { columnsByNumber } from '../mapping/map-record.js';

/** WooCommerce's product CSV export, one line of PRESET_KINDS (src/catalog/presets/index.ts). */
export const woocommercePreset = {
  name: 'woocommerce',
  label: 'a WooCommerce product export',
  required: ['Type', 'SKU', 'Name'],
  signature: ['Type', 'SKU', 'Name', 'Parent'],
  drafts: woocommerceDrafts,
} as const satisfies PresetKind;

const GROUPED = 'a grouped product is not a listing itself; the products it groups are listed from their own rows';
const PUBLISHED_WORDS: Readonly<Record<string, string>> = { '-1': 'a draft', '0': 'private or disabled' };

/** Why a product with this Published cell is not for sale; undefined when it is (1, or no such column). */
function unpublished(published: string, whose = 'the product'): string | undefined {
  if (published === '' || published === '1') return undefined;
  const what = PUBLISHED_WORDS[published] ?? 'not published';
  return `${whose} is ${what} in WooCommerce (Published ${JSON.stringify(published)}): only published products are listed`;
}

interface Parent {
  sku: string;
  name: string;
  images: string[];
  location: Location;
  /** Its Published cell, empty when the export has none. */
  published: string;
  /** No variation has named it yet. */
  childless: boolean;
}

/** The words of a Type cell: `simple, virtual` -> ['simple', 'virtual']. */
export function wooTypes(type: string): string[] {
  return splitList(type.toLowerCase(), ',');
}

function productValues(sku: string, title: string, images: readonly string[]): DraftValues {
  return {
    ...(sku === '' ? {} : { sku }),
    ...(title === '' ? {} : { title }),
    ...(images.length > 0 ? { images_source: [...images] } : {}),
  };
}

/** WooCommerce product rows -> one draft per listing (see the rules at the top of this file). */
export async function* woocommerceDrafts(records: AsyncIterable<RecordItem>): AsyncIterable<Draft> {
  const parents = new Map<string, Parent>();
  const variables: Parent[] = [];
  let attributeColumns: string[] | undefined;
  try {
    for await (const row of checkedRows(woocommercePreset, records)) {
      if (row.draft !== undefined) {
        yield row.draft;
        continue;
      }
      const { fields, location } = row;
      attributeColumns ??= columnsByNumber(Object.keys(fields), /^Attribute (\d+) value\(s\)$/);
      const types = wooTypes(cell(fields, 'Type'));
      const sku = cell(fields, 'SKU');
      const name = cell(fields, 'Name');
      const images = splitList(cell(fields, 'Images'), ',');
      const published = cell(fields, 'Published');
      if (types.includes('variable')) {
        const parent: Parent = { sku, name, images, location, published, childless: true };
        variables.push(parent);
        const id = cell(fields, 'ID');
        if (id !== '') parents.set(`id:${id}`, parent);
        if (sku !== '') parents.set(sku, parent);
        continue;
      }
      if (types.includes('variation')) {
        const ref = cell(fields, 'Parent');
        const parent = parents.get(ref) ?? (/^\d+$/.test(ref) ? parents.get(`id:${ref}`) : undefined);
        const attributes = attributeColumns.map((column) => cell(fields, column)).filter((value) => value !== '');
        const fallbackSku = parent && parent.sku !== '' ? `${parent.sku}-${slug(attributes.join(' ')) || cell(fields, 'ID')}` : '';
        const fallbackTitle = parent && parent.name !== '' ? [parent.name, attributes.join(', ')].filter(Boolean).join(' - ') : '';
        const draft: Draft = {
          location,
          values: productValues(sku || fallbackSku, name || fallbackTitle, unique([...images, ...(parent?.images ?? [])])),
          issues: [],
        };
        if (parent?.childless) {
          parent.childless = false;
          draft.rows = 2;
        }
        const skip = unpublished(published, 'the variation') ?? unpublished(parent?.published ?? '', 'its parent product');
        if (skip !== undefined) draft.skip = skip;
        yield draft;
        continue;
      }
      const draft: Draft = { location, values: productValues(sku, name, images), issues: [] };
      // Not checked as a listing (it has no SKU of its own): reported skipped, with why.
      const skip = types.includes('grouped') ? GROUPED : unpublished(published);
      if (skip !== undefined) draft.skip = skip;
      yield draft;
    }
  } catch (error) {
    // The source could not be read to its end: a variable parent with no variation read yet may have some in the
    // part that was not read, so it is reported, not sent as a product of its own.
    for (const parent of variables) {
      if (parent.childless) yield { location: parent.location, values: {}, issues: [{ path: '(record)', message: 'not sent: the source could not be read to the end, where its variations may be' }] };
    }
    throw error;
  }
  for (const parent of variables) {
    if (!parent.childless) continue;
    const skip = unpublished(parent.published);
    yield { location: parent.location, values: productValues(parent.sku, parent.name, parent.images), issues: [], ...(skip === undefined ? {} : { skip }) };
  }
}
