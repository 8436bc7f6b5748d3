import type { CatalogOptions } from '../catalog/types.js';
import type { ListingDefaults } from '../prepare/types.js';
import type { PublishRun } from '../publish/engine.js';
import type { PublishOptions } from '../publish/engine-types.js';
import { openPipeline } from './pipeline.js';
import { ConfigError } from '../errors.js';
import { checkPublishOptions } from '../publish/check-publish-options.js';

/** Options of {@link publishCatalog}: what to read, the listing defaults, and how to publish. */
export interface PublishCatalogOptions extends PublishOptions {
  /** Listing defaults (flat shape without saved defaults unless said otherwise). */
  defaults?: Partial<ListingDefaults>;
  /** Formats, mapping, presets and source options of the catalog reader. */
  catalog?: CatalogOptions;
}

/**
 * The whole pipeline as a library call: read one or more catalogs (file, `-`, http(s), s3://), prepare every row
 * and publish it (to each of `defaults.marketplaces`, when several are given and the row names none). Iterate the
 * returned run for one outcome per input row, in input order; `run.end` says why it ended. A setting that neither
 * the defaults nor the first rows give is one MissingSettingsError, thrown before anything is sent.
 *
 * ```ts
 * const client = new ListingsClient({ baseUrl, apiKey });
 * for await (const outcome of await publishCatalog('catalog.csv', { sender: client })) { ... }
 * ```
 *
 * Concurrency and pace are learned from the service unless `concurrency` (a fixed limit) or `rate` (a ceiling) say
 * otherwise. The reports, journal and state the CLI writes of a run come from `RunOutputs`, and its exit code with
 * the sentence that says why from `publishVerdict({ end: run.end, summary })`, the one verdict the CLI uses; the
 * whole run as the CLI runs it (paths, locks, resume, changed-only, retry-failed, outputs, verdict) is
 * `runPublishSpec` (publish-run.ts).
 */
export async function publishCatalog(sources: string | readonly string[], options: PublishCatalogOptions = {}): Promise<PublishRun> {
  if (typeof options !== 'object' || options === null) throw new ConfigError(`publishCatalog takes an options object, not ${String(options)}`);
  const { defaults, catalog, ...publishOptions } = options;
  // Checked again by the engine; here too so that a wrong option is told before a source is opened.
  checkPublishOptions(publishOptions);
  const fullDefaults: ListingDefaults = { shape: 'flat', saved_defaults: false, ...defaults };
  const pipeline = await openPipeline(typeof sources === 'string' ? [sources] : sources, { defaults: fullDefaults, catalog: catalog ?? {} });
  return pipeline.publish(publishOptions);
}
