import type { Catalog, Draft } from '../catalog/types.js';
import type { ListingDefaults, PreparedRow } from './types.js';
import { createPreparer, type Preparer } from './preparer.js';

/** A prepared row with its 0-based position in the run. */
export type IndexedRow = PreparedRow & { index: number };

/** Drafts -> prepared rows, one for one, in order, each with its index (from `firstIndex`). */
export async function* prepareDrafts(drafts: AsyncIterable<Draft>, prepare: Preparer, firstIndex = 0): AsyncIterable<IndexedRow> {
  let index = firstIndex;
  for await (const draft of drafts) yield { ...prepare(draft), index: index++ };
}

/** A catalog's drafts prepared under `defaults`, or under a preparer shared across several catalogs of one run. */
export function prepareCatalog(catalog: Catalog, defaults: ListingDefaults | Preparer, firstIndex = 0): AsyncIterable<IndexedRow> {
  const prepare = typeof defaults === 'function' ? defaults : createPreparer(defaults);
  return prepareDrafts(catalog.drafts, prepare, firstIndex);
}
