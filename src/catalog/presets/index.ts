import type { CatalogNotice, Draft, RecordItem } from '../types.js';
import type { PresetKind } from './preset-kind.js';
import { shopifyPreset } from './shopify.js';
import { woocommercePreset } from './woocommerce.js';
import { magentoPreset } from './magento.js';
import { prestashopPreset } from './prestashop.js';

/**
 * THE registry of presets: a preset is one file exporting a PresetKind and one line here. Its name becomes a choice
 * of the preset setting, and `auto` tries its signature, in this order.
 */
const PRESET_KINDS = [shopifyPreset, woocommercePreset, magentoPreset, prestashopPreset] as const;

/** The name of a shop system's export the reader knows. */
export type PresetName = (typeof PRESET_KINDS)[number]['name'];
/** A preset setting: an export's name, or `auto`: the export recognised by its header (recognisePreset). */
export type Preset = PresetName | 'auto';

export const PRESET_NAMES: readonly PresetName[] = PRESET_KINDS.map((kind) => kind.name);
export const PRESETS: readonly Preset[] = [...PRESET_NAMES, 'auto'];

export type { PresetKind } from './preset-kind.js';
export { requireColumns } from './cells.js';

/** The preset of that name; undefined for `auto` and for a name no preset has. */
export function presetKind(name: string): PresetKind | undefined {
  return PRESET_KINDS.find((kind) => kind.name === name);
}

/** The first preset whose signature columns are all in the header; undefined when none is. */
export function recognisePreset(columns: readonly string[]): PresetKind | undefined {
  return PRESET_KINDS.find((kind) => kind.signature.every((column) => columns.includes(column)));
}

/** What `auto` chose for a source, told once as a notice. */
export function presetChoiceNotice(source: string, kind: PresetKind | undefined, why = 'its header is no known export\'s'): CatalogNotice {
  if (kind !== undefined) return { kind: 'preset', source, preset: kind.name, message: `${source}: read as ${kind.label} (preset ${kind.name}, recognised by its header)` };
  const known = PRESET_KINDS.map((k) => k.name).join(', ');
  return { kind: 'preset', source, message: `${source}: read with the generic mapping, no preset (${why}; the presets: ${known})` };
}

/** The drafts of a shop system's export, under that system's rules (see each preset's file). */
export function presetDrafts(preset: PresetName, records: AsyncIterable<RecordItem>): AsyncIterable<Draft> {
  return presetKind(preset)!.drafts(records);
}

export { shopifyDrafts, shopifyCondition } from './shopify.js';
export { woocommerceDrafts } from './woocommerce.js';
export { magentoDrafts } from './magento.js';
export { prestashopDrafts } from './prestashop.js';
