import type { Draft, Preset } from '../types.js';
import type { RecordItem } from '../types.js';
import { shopifyDrafts } from './shopify.js';
import { woocommerceDrafts } from './woocommerce.js';

export { PRESETS, type Preset } from '../types.js';

/** The drafts of a shop system's export, under that system's rules (see each preset's file). */
export function presetDrafts(preset: Preset, records: AsyncIterable<RecordItem>): AsyncIterable<Draft> {
  return preset === 'shopify' ? shopifyDrafts(records) : woocommerceDrafts(records);
}

export { shopifyDrafts, shopifyCondition } from './shopify.js';
export { woocommerceDrafts } from './woocommerce.js';
