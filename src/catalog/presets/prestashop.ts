/**
 * `--preset prestashop`: PrestaShop's product CSV in the layout of its product import (Advanced Parameters > Import,
 * entity Products; the layout export modules write so that the file can be imported back): `;` separated, columns
 * Product ID, Active (0/1), Name *, Reference #, Image URLs (x,y,z...), Condition, ... The delimiter is sniffed, so a
 * `,` export reads the same.
 *
 * One listing per product row:
 * - sku: Reference # (PrestaShop's name for the SKU); a row without one is reported invalid at that column.
 * - title: Name * (or Name).
 * - images_source: Image URLs (x,y,z...) split on commas.
 * - overrides.condition: Condition: new, used, refurbished -> NEW, USED, REFURBISHED; empty leaves it to the setting.
 * - A row whose Active (0/1) is not 1 is disabled in the shop: reported `skipped`, with why.
 * Combinations (variants) come in a separate combinations file, which this preset does not read.
 *
 * Streaming: each row is judged alone; nothing is held between rows.
 */
import type { Draft, DraftValues } from '../types.js';
import type { RecordItem } from '../types.js';
import type { Location } from '../../errors.js';
import { splitList } from '../mapping/values.js';
import { cell, conditionOf, rowByRow } from './cells.js';
import type { PresetKind } from './preset-kind.js';

const REFERENCE = 'Reference #';
const ACTIVE = 'Active (0/1)';
const IMAGES = 'Image URLs (x,y,z...)';

/** PrestaShop's product CSV, one line of PRESET_KINDS (src/catalog/presets/index.ts). */
export const prestashopPreset = {
  name: 'prestashop',
  label: 'a PrestaShop product export',
  required: [REFERENCE],
  signature: [REFERENCE, ACTIVE, IMAGES],
  drafts: prestashopDrafts,
} as const satisfies PresetKind;

function valuesOf(fields: Record<string, unknown>): DraftValues {
  const sku = cell(fields, REFERENCE);
  const title = cell(fields, 'Name *') || cell(fields, 'Name');
  const images = splitList(cell(fields, IMAGES), ',');
  const condition = conditionOf(cell(fields, 'Condition'));
  return {
    ...(sku === '' ? {} : { sku }),
    ...(title === '' ? {} : { title }),
    ...(images.length > 0 ? { images_source: images } : {}),
    ...(condition === undefined ? {} : { overrides: { condition } }),
  };
}

/** One PrestaShop product row -> its draft (see the rules at the top of this file). */
function prestashopDraft(fields: Record<string, unknown>, location: Location): Draft {
  const values = valuesOf(fields);
  const active = cell(fields, ACTIVE);
  if (active !== '' && active !== '1') return { location, values, issues: [], skip: `disabled in PrestaShop (${ACTIVE} ${JSON.stringify(active)})` };
  if (values.sku === undefined) return { location, values, issues: [{ path: REFERENCE, message: 'is empty: a listing needs a SKU, which PrestaShop calls the reference' }] };
  return { location, values, issues: [] };
}

/** PrestaShop product rows -> one draft per row. */
export function prestashopDrafts(records: AsyncIterable<RecordItem>): AsyncIterable<Draft> {
  return rowByRow(prestashopPreset, records, prestashopDraft);
}
