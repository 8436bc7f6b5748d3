import { openCatalogs } from '../catalog/open-catalog.js';
import type { Catalog, CatalogOptions } from '../catalog/types.js';
import { shapeSends } from '../prepare/notice-matters.js';
import { createPreparer } from '../prepare/preparer.js';
import type { ListingDefaults } from '../prepare/types.js';
import { publishRows, type PublishRun } from '../publish/engine.js';
import type { PublishOptions } from '../publish/engine-types.js';
import { createDraftsCheck, type CheckedDrafts } from './checked-drafts.js';
import type { NameSetting } from '../errors.js';

/** What {@link openPipeline} reads and how its rows are prepared. */
export interface PipelineOptions {
  /** The run's listing defaults, whole (shape and saved_defaults included). */
  defaults: ListingDefaults;
  /** Formats, mapping, presets and source options of the catalog reader, with its notices callback and stop signal. */
  catalog: CatalogOptions;
  /** How a row's issue names a setting that would fill a missing field (the CLI passes its flag names). */
  name?: NameSetting;
}

/** A run's catalog opened and its settings checked: nothing sent yet, and no output opened. */
export interface RunPipeline extends CheckedDrafts {
  /** The catalog being read, for progress (bytes read, and the total once known). */
  readonly catalog: Catalog;
  /** Starts publishing the drafts: one outcome per listing, in input order. The drafts are read once: call it once. */
  publish(options: PublishOptions): PublishRun;
}

/**
 * The pipeline of one publish run, from its sources up to the engine: the catalogs opened as one (the first source
 * now, so that a missing one fails first), the settings checked against the first rows (MissingSettingsError before
 * anything is sent) and the rows fanned out to several marketplaces. Publishing is a second step so that a caller
 * can open its outputs (the journal the engine writes to) once the catalog is known to be usable.
 */
export async function openPipeline(sources: readonly string[], options: PipelineOptions): Promise<RunPipeline> {
  const { defaults } = options;
  const catalog = await openCatalogs(sources, { ...options.catalog, sends: options.catalog.sends ?? shapeSends(defaults.shape) });
  const { drafts, fanOut } = await createDraftsCheck(defaults)(catalog.drafts);
  return { catalog, drafts, fanOut, publish: (publishOptions) => publishRows(drafts, publishOptions, createPreparer(defaults, options.name === undefined ? {} : { name: options.name })) };
}
