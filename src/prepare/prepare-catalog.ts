import type { Catalog, Draft } from '../catalog/types.js';
import type { ListingDefaults, PreparedRow } from './types.js';
import { createPreparer, type Preparer } from './preparer.js';
import { fanOutDrafts } from './fan-out.js';

/** A prepared row with its 0-based position in the run. */
export type IndexedRow = PreparedRow & { index: number };

/** Drafts -> prepared rows, one for one, in order, each with its index (from `firstIndex`). */
export async function* prepareDrafts(drafts: AsyncIterable<Draft>, prepare: Preparer, firstIndex = 0): AsyncIterable<IndexedRow> {
  let index = firstIndex;
  for await (const draft of drafts) yield { ...prepare(draft), index: index++ };
}

/**
 * A catalog's drafts prepared under `defaults` (fanned out to each of `defaults.marketplaces` when there are
 * several), or under a preparer shared across several catalogs of one run.
 */
export function prepareCatalog(catalog: Catalog, defaults: ListingDefaults | Preparer, firstIndex = 0): AsyncIterable<IndexedRow> {
  if (typeof defaults === 'function') return prepareDrafts(catalog.drafts, defaults, firstIndex);
  return prepareDrafts(fanOutDrafts(catalog.drafts, defaults), createPreparer(defaults), firstIndex);
}
