import type { Draft } from '../catalog/types.js';
import { isMarketplaceSettingKey, sectionName } from '../config/options.js';
import { DEFAULTABLE_FIELDS, type Shape } from '../contract/schemas.js';
import { UsageError } from '../errors.js';
import type { ListingDefaults } from './types.js';
import { defaultMarketplaces } from './fan-out.js';

/**
 * A run's settings are checked against this many drafts at most: enough to tell a catalog without the column from
 * one with a few empty cells, few enough that keeping them costs nothing and the first request is not held back.
 */
export const FIRST_ROWS = 100;

/** A setting a request of the run's shape needs, which a row may give and a flag, env or profile may default. */
export type RequiredSetting = 'marketplace' | (typeof DEFAULTABLE_FIELDS)[number];

/**
 * The marketplaces of the run whose defaults lack `field` (each judged by its own defaults: its profile section,
 * its environment variables, then the general values); with no marketplace set, `['']` when the general defaults
 * lack it.
 */
export function marketplacesLacking(defaults: ListingDefaults, field: (typeof DEFAULTABLE_FIELDS)[number]): string[] {
  const marketplaces = defaultMarketplaces(defaults);
  if (marketplaces.length === 0) return defaults[field] === undefined ? [''] : [];
  return marketplaces.filter((marketplace) => (defaults.per_marketplace?.[sectionName(marketplace)] ?? defaults)[field] === undefined);
}

/**
 * The settings a request of this shape needs that no default covers, each of which must then come from the rows: the
 * marketplace, and for the flat shape without saved Marketplace configurations the location key and the three policy
 * ids (rules 1 and 2), for each marketplace of the run by its own defaults. The wrapped shape sends neither location
 * key nor policy ids.
 */
export function neededSettings(defaults: ListingDefaults): RequiredSetting[] {
  const needed: RequiredSetting[] = [];
  if (defaultMarketplaces(defaults).length === 0) needed.push('marketplace');
  if (defaults.shape === 'flat' && !defaults.saved_defaults) {
    for (const field of DEFAULTABLE_FIELDS) if (marketplacesLacking(defaults, field).length > 0) needed.push(field);
  }
  return needed;
}

/** A draft that says something about the catalog's columns: not a row that is no listing, nor one that could not be read. */
function tellsColumns(draft: Draft): boolean {
  if (draft.skip !== undefined) return false;
  for (const issue of draft.issues) if (issue.path === '(record)') return false;
  return true;
}

/** The needed settings not yet given by any of the drafts seen. */
class Unseen {
  private readonly unseen: Set<RequiredSetting>;
  /** Whether a draft that tells the columns was seen: rows that tell nothing prove nothing missing. */
  private told = false;

  constructor(private readonly needed: readonly RequiredSetting[]) {
    this.unseen = new Set(needed);
  }

  /** Whether every needed setting was given by some row. */
  get none(): boolean {
    return this.unseen.size === 0;
  }

  see(draft: Draft): void {
    if (!tellsColumns(draft)) return;
    this.told = true;
    for (const setting of this.unseen) if (draft.values[setting] !== undefined) this.unseen.delete(setting);
  }

  /** The settings no row gave, in the order of neededSettings; none when no row told the columns. */
  missing(): RequiredSetting[] {
    return this.told ? this.needed.filter((setting) => this.unseen.has(setting)) : [];
  }
}

/**
 * The needed settings (see neededSettings) that none of `drafts` gives. Pure. Rows that tell nothing of the columns
 * (skipped by design, unreadable) give nothing and prove nothing: with no other row, nothing is missing, and the rows
 * are left to the per-row checks.
 */
export function missingSettings(drafts: Iterable<Draft>, defaults: ListingDefaults): RequiredSetting[] {
  const unseen = new Unseen(neededSettings(defaults));
  for (const draft of drafts) {
    if (unseen.none) break;
    unseen.see(draft);
  }
  return unseen.missing();
}

/** The rows a check looked at: how many input rows, of which source, and whether that was all of the source's rows. */
export interface Examined {
  source: string;
  rows: number;
  whole: boolean;
  /** Set when the rows were a stream's messages: where they are (`topic t, partition 2`), the first and last offsets. */
  messages?: { of: string; first: number; last: number };
}

/** Names the place of a stream's messages from their source (`topic t, partition 2`): its rows are then messages. */
export type MessagesOf = (source: string) => string;

/**
 * How to give one setting besides the rows, worded for whoever reads the error; `marketplaces` are those of a fan-out
 * that lack it (empty when the run as a whole lacks it). The CLI words them as its flags, variables and `config set`.
 */
export type WaysToGive = (setting: RequiredSetting, marketplaces: readonly string[]) => string;

/** How to set one of the run's switches the hint names (`saved_defaults` to `true`, `shape` to `wrapped`). */
export type SwitchTo = (setting: 'saved_defaults' | 'shape', value: string) => string;

/** The library's way to set a switch: its defaults option. */
export const librarySwitch: SwitchTo = (setting, value) => `defaults.${setting} = ${value}`;

/** The next step a MissingSettingsError suggests: saved Marketplace configurations, or the marketplace's form. */
function hintOf(settings: readonly RequiredSetting[], shape: Shape, to: SwitchTo): string {
  if (settings.some((setting) => setting !== 'marketplace')) {
    return `when the workspace has Marketplace configurations saved, the location key and the policy ids may be left out: ${to('saved_defaults', 'true')}`;
  }
  return shape === 'wrapped' ? 'the wrapped shape takes a marketplace such as ebay' : `the flat shape takes a marketplace such as EBAY_US (ebay with ${to('shape', 'wrapped')})`;
}

/** The library's ways: the defaults option (a marketplace's own section). */
export const libraryWays: WaysToGive = (setting, marketplaces) => {
  if (marketplaces.length > 0 && isMarketplaceSettingKey(setting)) {
    const sections = marketplaces.map((marketplace) => `defaults.per_marketplace.${sectionName(marketplace)}.${setting}`).join(', ');
    return `${sections}, defaults.${setting} (for every marketplace)`;
  }
  return `defaults.${setting}`;
};

/**
 * `none of the 3 rows of cat.csv has a value for them`, `the one row of ... has no value for it`, `none of the first
 * 100 ...`; for messages `none of the first 37 messages read (topic t, partition 2, offsets 0 to 36) has a value ...`.
 */
function noRowGives({ source, rows, whole, messages }: Examined, pronoun: string): string {
  if (messages !== undefined) {
    if (rows === 1) return `the first message read (${messages.of}, offset ${messages.first}) has no value for ${pronoun}`;
    return `none of the first ${rows} messages read (${messages.of}, offsets ${messages.first} to ${messages.last}) has a value for ${pronoun}`;
  }
  if (whole && rows === 1) return `the one row of ${source} has no value for ${pronoun}`;
  return `none of the ${whole ? '' : 'first '}${rows} rows of ${source} has a value for ${pronoun}`;
}

/**
 * What a MissingSettingsError says: which settings, why, and the ways to give each, worded by `ways`. Without rows
 * examined (one listing given by its fields), no row could have given them, and none is offered as a way.
 */
function describeMissing(settings: readonly RequiredSetting[], examined: Examined | undefined, lacking: Readonly<Partial<Record<RequiredSetting, readonly string[]>>>, ways: WaysToGive): string {
  const several = settings.length > 1;
  const named = (setting: RequiredSetting): string => {
    const marketplaces = lacking[setting];
    return marketplaces === undefined || marketplaces.length === 0 ? setting : `${setting} for ${marketplaces.join(', ')}`;
  };
  const why = examined === undefined ? '' : `, and ${noRowGives(examined, several ? 'them' : 'it')}`;
  const head = `${settings.map(named).join(', ')} ${several ? 'are' : 'is'} not set${why}; give ${several ? 'each' : 'it'} with:`;
  const row = examined === undefined ? undefined : examined.messages === undefined ? 'column in the catalog' : 'field in the messages';
  return [head, ...settings.map((setting) => `  ${named(setting)}: ${ways(setting, lacking[setting] ?? [])}${row === undefined ? '' : `, or a ${setting} ${row}`}`)].join('\n');
}

/**
 * Settings that neither the defaults nor the profile gives, and that none of the catalog's first rows gives (or, for
 * one listing given by its fields, `examined` undefined: that no default gives): every row would be invalid for the
 * same reason, so the run is refused before anything is sent (exit 2). The message
 * words the ways to give each as a library caller gives them (`defaults.return_policy_id`); `describe(ways)` words
 * them otherwise (the CLI: flags, variables, `config set`), from the settings and the rows looked at it carries.
 */
export class MissingSettingsError extends UsageError {
  /**
   * `lacking` names, for a setting that some marketplaces of a fan-out have and others lack, the ones that lack it
   * (`fulfillment_policy_id for EBAY_GB`).
   */
  constructor(
    readonly settings: readonly RequiredSetting[],
    readonly examined: Examined | undefined,
    readonly shape: Shape = 'flat',
    readonly lacking: Readonly<Partial<Record<RequiredSetting, readonly string[]>>> = {},
  ) {
    super(describeMissing(settings, examined, lacking, libraryWays), { hint: hintOf(settings, shape, librarySwitch) });
  }

  /** The message and hint with the ways to give each setting worded by `ways`, and the switches by `to`. */
  describe(ways: WaysToGive, to: SwitchTo): { message: string; hint: string } {
    return { message: describeMissing(this.settings, this.examined, this.lacking, ways), hint: hintOf(this.settings, this.shape, to) };
  }
}

/** The kept first drafts, then the rest of the source (if any), or else the error that ended the read (if one did). */
function replay(kept: Draft[], rest: AsyncIterator<Draft> | undefined, failure?: { error: Error }): AsyncIterable<Draft> {
  let head = kept;
  let at = 0;
  let tail = rest;
  let pending = failure;
  // A plain iterator rather than a generator: past the first rows, a row costs one call more than reading it directly.
  const iterator: AsyncIterator<Draft> = {
    next() {
      if (at < head.length) {
        const value = head[at++]!;
        if (at === head.length) {
          // Let the kept drafts go once all are handed on.
          head = [];
          at = 0;
        }
        return Promise.resolve({ value, done: false });
      }
      if (pending !== undefined) {
        const { error } = pending;
        pending = undefined;
        return Promise.reject(error);
      }
      return tail === undefined ? Promise.resolve({ value: undefined, done: true }) : tail.next();
    },
    return(value?: unknown) {
      head = [];
      pending = undefined;
      const open = tail;
      tail = undefined;
      return open?.return === undefined ? Promise.resolve({ value: undefined, done: true }) : open.return(value);
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/** Checks the first drafts of a run before anything is sent; see createSettingsCheck. */
export type SettingsCheck = (drafts: AsyncIterable<Draft>) => Promise<AsyncIterable<Draft>>;

/**
 * A check of one run's settings against its first rows. When every needed setting has a default, the drafts are passed
 * on untouched and nothing is read. Otherwise the first drafts are read and kept (up to `firstRows`, stopping as soon
 * as each needed setting was seen in a row, or where the first source ends); when none of them gives a needed
 * setting, MissingSettingsError is thrown and the source closed. Else the drafts come out as they went in, the kept
 * ones first: the same rows in the same order, at most `firstRows` of them read ahead.
 *
 * Only the first source with rows is judged, so that a multi-source run read as one catalog (`publish`) and one read
 * source by source through the same check (`validate`) are judged by the same rows. A read that fails among the first
 * rows is not judged: its error comes out of the drafts after the rows read before it, as it would without the check.
 * With `messagesOf`, the rows are a stream's messages (their records offsets), and the error words them so.
 */
export function createSettingsCheck(defaults: ListingDefaults, firstRows = FIRST_ROWS, messagesOf?: MessagesOf): SettingsCheck {
  const needed = neededSettings(defaults);
  let judged = needed.length === 0;
  return async (drafts) => {
    if (judged) return drafts;
    const iterator = drafts[Symbol.asyncIterator]();
    const kept: Draft[] = [];
    const unseen = new Unseen(needed);
    let source: string | undefined;
    let examined = 0;
    let first: number | undefined;
    let last: number | undefined;
    let ended = false;
    let nextSource = false;
    while (kept.length < firstRows && !unseen.none) {
      let next: IteratorResult<Draft>;
      try {
        next = await iterator.next();
      } catch (error) {
        judged ||= kept.length > 0;
        // Passed on as it was thrown, whatever it is (an abort is told from a failure by its name).
        return replay(kept, undefined, { error: error as Error });
      }
      if (next.done === true) {
        ended = true;
        break;
      }
      const draft = next.value;
      kept.push(draft);
      source ??= draft.location.source;
      if (draft.location.source !== source) {
        nextSource = true;
        break;
      }
      // Input rows, as the person reading the file counts them (a preset may fold several into one listing).
      examined += draft.rows ?? 1;
      first ??= draft.location.record;
      last = draft.location.record;
      unseen.see(draft);
    }
    judged ||= examined > 0;
    const missing = unseen.missing();
    if (missing.length > 0) {
      if (!ended) await iterator.return?.().catch(() => undefined);
      const messages = messagesOf === undefined || source === undefined ? undefined : { of: messagesOf(source), first: first ?? 0, last: last ?? 0 };
      const examinedRows: Examined = { source: source ?? '', rows: examined, whole: messages === undefined && (ended || nextSource), ...(messages === undefined ? {} : { messages }) };
      throw new MissingSettingsError(missing, examinedRows, defaults.shape, lackingOf(defaults, missing));
    }
    return replay(kept, ended ? undefined : iterator);
  };
}

/** For each missing setting that only some of the run's marketplaces lack, those marketplaces. */
function lackingOf(defaults: ListingDefaults, missing: readonly RequiredSetting[]): Partial<Record<RequiredSetting, readonly string[]>> {
  const lacking: Partial<Record<RequiredSetting, readonly string[]>> = {};
  const all = defaultMarketplaces(defaults).length;
  for (const setting of missing) {
    if (setting === 'marketplace') continue;
    const marketplaces = marketplacesLacking(defaults, setting);
    if (marketplaces.length < all) lacking[setting] = marketplaces;
  }
  return lacking;
}

/**
 * For one listing given by its fields rather than read from rows (`create`): the settings its request needs that no
 * default gives are a MissingSettingsError, as they are for a catalog, since no row can give them.
 */
export function requireOneListingSettings(defaults: ListingDefaults): void {
  const missing = neededSettings(defaults);
  if (missing.length > 0) throw new MissingSettingsError(missing, undefined, defaults.shape, lackingOf(defaults, missing));
}

/** The check for a run read as one catalog: `await requireSettings(catalog.drafts, defaults)` in place of `catalog.drafts`. */
export function requireSettings(drafts: AsyncIterable<Draft>, defaults: ListingDefaults, firstRows = FIRST_ROWS): Promise<AsyncIterable<Draft>> {
  return createSettingsCheck(defaults, firstRows)(drafts);
}
