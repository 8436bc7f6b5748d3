import { listingsEndpoint } from '../client/endpoint.js';
import { didYouMean } from '../did-you-mean.js';
import type { MarketplaceSetting } from '../config/marketplace-settings.js';
import { OPTIONS, OPTION_BY_KEY, PER_MARKETPLACE_KEYS, isMarketplaceSettingKey, marketplaceEnv, parseMarketplaceId, sectionName, type MarketplaceSettingKey, type OptionSpec, type SettingValue } from '../config/options.js';
import { ConfigError, UsageError } from '../errors.js';
import { headerValueFault, maskSecret } from '../secrets.js';
import type { LoadedSettings } from './settings.js';

/** One setting of a profile read, written or removed, as `listings config` does: by key, or a marketplace's own. */

/** The setting of a key; a UsageError (with a did-you-mean) for a key the options table does not have. */
export function optionFor(key: string): OptionSpec {
  const option = OPTION_BY_KEY.get(key);
  if (option) return option;
  const guess = didYouMean(key, OPTION_BY_KEY.keys());
  throw new UsageError(`unknown config key ${JSON.stringify(key)}${guess ? `; did you mean ${guess}?` : ''}`, {
    hint: `keys: ${OPTIONS.map((o) => o.key).join(', ')}`,
  });
}

/** A value as shown: a secret masked. */
export function shownValue(option: OptionSpec, value: unknown): string {
  return option.secret && typeof value === 'string' ? maskSecret(value) : String(value);
}

/** A marketplace's section of a profile and the key in it. */
export interface SectionKey {
  name: string;
  key: MarketplaceSettingKey;
}

/**
 * The section the marketplace names, for a key a marketplace may have of its own; undefined without a marketplace.
 * A key no marketplace has of its own is a usage error.
 */
export function sectionOf(option: OptionSpec, marketplace: string | undefined): SectionKey | undefined {
  if (marketplace === undefined) return undefined;
  if (!isMarketplaceSettingKey(option.key)) {
    throw new UsageError(`${option.key} is one setting for every marketplace: it cannot be set per marketplace`, {
      hint: `a marketplace may have its own: ${PER_MARKETPLACE_KEYS.join(', ')}`,
    });
  }
  let id: string;
  try {
    id = parseMarketplaceId(marketplace);
  } catch (error) {
    const reason = (error as Error).message;
    throw new ConfigError((name) => `${name('marketplace')}: ${reason}`, { setting: { key: 'marketplace', value: marketplace } });
  }
  return { name: sectionName(id), key: option.key };
}

/**
 * A value as `config set` stores it: parsed by its setting (a ConfigError naming the key), and a base URL that
 * publish and create would refuse (plain http to a host that is not loopback, say) refused now.
 */
export function storedValue(option: OptionSpec, text: string, allowInsecureHttp: boolean): SettingValue {
  let parsed: SettingValue;
  try {
    parsed = option.parse(text);
  } catch (error) {
    throw new ConfigError(`${option.key}: ${(error as Error).message}`);
  }
  if (option.key === 'base_url') listingsEndpoint(String(parsed), { allowInsecureHttp });
  // Refused now rather than by every run after it; the fault names the character only, never the key.
  const fault = option.secret === true ? headerValueFault(String(parsed)) : undefined;
  if (fault !== undefined) throw new ConfigError(`${option.key}: ${fault}`, { hint: 'store the key alone (was a line break copied with it?)' });
  return parsed;
}

/** One line of `config list`: a setting (or `EBAY_GB.fulfillment_policy_id`), its value as shown, and its source. */
export interface SettingRow {
  key: string;
  value: string | undefined;
  source: string;
}

/** Where a marketplace's value came from, for `config list`. */
function sourceOf(name: string, key: MarketplaceSettingKey, setting: MarketplaceSetting): string {
  if (!setting.own) return setting.source;
  return setting.source === 'env' ? `env ${marketplaceEnv(name, key)}` : `profile, ${name} section`;
}

/** Every setting in effect with where it came from; with `ownValues`, then each marketplace's own values. */
export function settingRows(loaded: LoadedSettings, ownValues: boolean): SettingRow[] {
  const rows: SettingRow[] = OPTIONS.map((option) => {
    const value = loaded.settings[option.key];
    return { key: option.key, value: value === undefined ? undefined : shownValue(option, value), source: loaded.sources[option.key] ?? 'unset' };
  });
  if (!ownValues) return rows;
  // A marketplace's own values, as `EBAY_GB.fulfillment_policy_id`: the ones that differ from the general values.
  for (const [name, settings] of Object.entries(loaded.marketplaces)) {
    for (const key of PER_MARKETPLACE_KEYS) {
      const setting = settings[key];
      if (setting?.own === true) rows.push({ key: `${name}.${key}`, value: setting.value, source: sourceOf(name, key, setting) });
    }
  }
  return rows;
}

/** `config list --json`: the profile, the file, every setting and each marketplace's values with their sources. */
export function settingsJson(loaded: LoadedSettings): Record<string, unknown> {
  const rows = settingRows(loaded, false);
  const marketplaces = Object.fromEntries(
    Object.entries(loaded.marketplaces).map(([name, settings]) => [name, Object.fromEntries(Object.entries(settings).map(([key, setting]) => [key, { value: setting.value, source: setting.source, own: setting.own }]))]),
  );
  return { profile: loaded.profile, path: loaded.store.path, settings: Object.fromEntries(rows.map((r) => [r.key, { value: r.value ?? null, source: r.source }])), marketplaces };
}

/** Makes a profile the active one; a ConfigError when the name is not valid, or the file holds none of that name. */
export async function useProfile(name: string, env: Record<string, string | undefined> = process.env): Promise<void> {
  // The store is loaded only by the commands that use it (start-up stays light).
  const { checkProfileName, noSuchProfile, ProfileStore } = await import('../config/store.js');
  checkProfileName(name);
  const store = await ProfileStore.open(env);
  if (!store.profileNames().includes(name)) throw noSuchProfile(name, store.profileNames());
  await store.use(name);
}

/** Which profile `config set` and `config unset` change (the active one unless named), and a marketplace's section of it. */
export interface ProfileWhere {
  profile?: string | undefined;
  marketplace?: string | undefined;
}

async function openProfile(name: string | undefined, env: Record<string, string | undefined>) {
  const { ProfileStore } = await import('../config/store.js');
  const store = await ProfileStore.open(env);
  return { store, profile: store.activeProfile(name, env) };
}

/** What `config set` stored: the setting, its value as parsed, the marketplace's section (if any), the profile and its file. */
export interface StoredSetting {
  option: OptionSpec;
  value: SettingValue;
  section: SectionKey | undefined;
  profile: string;
  path: string;
}

/** `config set`: a value parsed by its setting and stored in the profile, or in a marketplace's section of it. */
export async function setSetting(key: string, text: string, where: ProfileWhere & { allowInsecureHttp: boolean }, env: Record<string, string | undefined> = process.env): Promise<StoredSetting> {
  const option = optionFor(key);
  const section = sectionOf(option, where.marketplace);
  const value = storedValue(option, text, where.allowInsecureHttp);
  const { store, profile } = await openProfile(where.profile, env);
  if (section === undefined) await store.set(profile, option.key, value);
  else await store.setSection(profile, section.name, section.key, String(value));
  return { option, value, section, profile, path: store.path };
}

/** `config unset`: a value removed from the profile, or from a marketplace's section of it; `removed`: it was set. */
export async function unsetSetting(key: string, where: ProfileWhere, env: Record<string, string | undefined> = process.env): Promise<{ removed: boolean; section: SectionKey | undefined; profile: string }> {
  const option = optionFor(key);
  const section = sectionOf(option, where.marketplace);
  const { store, profile } = await openProfile(where.profile, env);
  const removed = section === undefined ? await store.unset(profile, option.key) : await store.unsetSection(profile, section.name, section.key);
  return { removed, section, profile };
}

/** `config get`: the value in effect of a setting, or a marketplace's own; undefined when it is not set. */
export function settingValue(loaded: LoadedSettings, key: string, marketplace: string | undefined): { option: OptionSpec; section: SectionKey | undefined; value: unknown } {
  const option = optionFor(key);
  const section = sectionOf(option, marketplace);
  return { option, section, value: section === undefined ? loaded.settings[option.key] : loaded.marketplaces[section.name]?.[section.key]?.value };
}

/** `config profiles`: the profiles of the file, the active one (unless the file's choice is not valid: then its error), and the names not valid. */
export async function profileListing(env: Record<string, string | undefined> = process.env): Promise<{ names: string[]; active: string | undefined; activeError: ConfigError | undefined; invalid: string[]; path: string }> {
  const { ProfileStore } = await import('../config/store.js');
  const store = await ProfileStore.open(env);
  let active: string | undefined;
  let activeError: ConfigError | undefined;
  try {
    active = store.activeProfile(undefined, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    activeError = error;
  }
  return { names: store.profileNames(), active, activeError, invalid: store.invalidProfileNames(), path: store.path };
}
