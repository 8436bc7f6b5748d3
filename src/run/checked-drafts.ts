import type { Draft } from '../catalog/types.js';
import { createSettingsCheck } from '../prepare/missing-settings.js';
import { FanOut, fanOutDrafts } from '../prepare/fan-out.js';
import type { ListingDefaults } from '../prepare/types.js';

/** A run's drafts once its settings were checked and its rows fanned out: what the preparer takes. */
export interface CheckedDrafts {
  /** The drafts to prepare: one per listing (a row fanned out to several marketplaces is several). */
  readonly drafts: AsyncIterable<Draft>;
  /**
   * The fan-out of a run to several marketplaces, for its counts (`factor`, `taken`, `copiesLeft`); undefined when
   * the run has one marketplace or none.
   */
  readonly fanOut: FanOut | undefined;
}

/** Checks one catalog's drafts of a run; see createDraftsCheck. */
export type DraftsCheck = (drafts: AsyncIterable<Draft>) => Promise<CheckedDrafts>;

/**
 * The drafts stage of one run: the settings checked against the first rows (MissingSettingsError before anything is
 * sent, see createSettingsCheck), then each row that names no marketplace fanned out to each of
 * `defaults.marketplaces` when there are several. Made once per run and applied to one catalog of all its sources, or
 * to each source in turn: the settings are judged once, by the first source with rows.
 */
export function createDraftsCheck(defaults: ListingDefaults): DraftsCheck {
  const checkSettings = createSettingsCheck(defaults);
  return async (drafts) => {
    // Checked before the fan-out, so that the first rows are judged as input rows, not as their copies.
    const checked = await checkSettings(drafts);
    const fannedOut = fanOutDrafts(checked, defaults);
    return { drafts: fannedOut, fanOut: fannedOut instanceof FanOut ? fannedOut : undefined };
  };
}
