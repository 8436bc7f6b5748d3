import { openCatalogs } from './catalog/open-catalog.js';
import type { CatalogOptions } from './catalog/types.js';
import { createPreparer } from './prepare/preparer.js';
import { requireSettings } from './prepare/missing-settings.js';
import { fanOutDrafts } from './prepare/fan-out.js';
import type { ListingDefaults } from './prepare/types.js';
import { publishRows, type PublishRun } from './publish/engine.js';
import type { PublishOptions } from './publish/engine-types.js';

/** Options of {@link publishCatalog}: what to read, the listing defaults, and how to publish. */
export interface PublishCatalogOptions extends PublishOptions {
  /** Listing defaults (flat shape without saved defaults unless said otherwise). */
  defaults?: Partial<ListingDefaults>;
  /** Formats, mapping, presets and source options of the catalog reader. */
  catalog?: CatalogOptions;
}

/**
 * The whole pipeline as a library call: read one or more catalogs (file, `-`, http(s), s3://), prepare every row
 * and publish it (to each of `defaults.marketplaces`, when several are given and the row names none). Iterate the returned run for one outcome per input row, in input order; `run.end` says why it
 * ended.
 *
 * ```ts
 * const client = new ListingsClient({ baseUrl, apiKey });
 * for await (const outcome of await publishCatalog('catalog.csv', { sender: client })) { ... }
 * ```
 *
 * Concurrency and pace are learned from the service unless `concurrency` (a fixed limit) or `rate` (a ceiling) say
 * otherwise.
 */
export async function publishCatalog(sources: string | readonly string[], options: PublishCatalogOptions = {}): Promise<PublishRun> {
  const { defaults, catalog: catalogOptions, ...publishOptions } = options;
  const catalog = await openCatalogs(typeof sources === 'string' ? [sources] : sources, catalogOptions ?? {});
  const fullDefaults: ListingDefaults = { shape: 'flat', saved_defaults: false, ...defaults };
  // A setting neither the defaults nor the first rows give is one MissingSettingsError, before anything is sent.
  // With several marketplaces (`defaults.marketplaces`) each row that names none is published to each.
  return publishRows(fanOutDrafts(await requireSettings(catalog.drafts, fullDefaults), fullDefaults), publishOptions, createPreparer(fullDefaults));
}
