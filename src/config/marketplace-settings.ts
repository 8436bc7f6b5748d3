import { ConfigError, type SettingText } from '../errors.js';
import { givenForRun } from './resolve.js';
import { OPTION_BY_KEY, PER_MARKETPLACE_KEYS, marketplaceEnv, sectionName, type MarketplaceSettingKey, type SettingKey, type SettingSource } from './options.js';

/** A profile's marketplace sections: section name (`EBAY_GB`) -> that marketplace's own defaults. */
export type MarketplaceSections = Record<string, Partial<Record<MarketplaceSettingKey, string>>>;

/**
 * One per-marketplace value in effect: where it came from, and whether it is the marketplace's own (its environment
 * variable or its profile section) rather than the general value every marketplace shares.
 */
export interface MarketplaceSetting {
  value: string;
  source: SettingSource;
  own: boolean;
}

export type MarketplaceSettings = Partial<Record<MarketplaceSettingKey, MarketplaceSetting>>;

/** The raw inputs of a marketplace's resolution, as for resolveSettings plus the profile's sections. */
export interface MarketplaceLayers {
  flags: Partial<Record<SettingKey, unknown>>;
  env: Record<string, string | undefined>;
  profile: Partial<Record<SettingKey, unknown>>;
  sections: MarketplaceSections;
}

const ENV_NAME = new RegExp(`^LISTINGS_([A-Z0-9][A-Z0-9_]*)_(${PER_MARKETPLACE_KEYS.map((key) => key.toUpperCase()).join('|')})$`);

/** The marketplaces (section names) that an environment variable of their own gives a value, e.g. LISTINGS_EBAY_GB_CONDITION. */
export function envMarketplaces(env: Record<string, string | undefined>): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    const match = ENV_NAME.exec(name);
    if (match?.[1] !== undefined) found.add(match[1]);
  }
  return [...found].sort();
}

function parsed(key: MarketplaceSettingKey, raw: unknown, marketplace: string, from: string | SettingText): string {
  const option = OPTION_BY_KEY.get(key)!;
  try {
    return String(option.parse(String(raw)));
  } catch (error) {
    const reason = (error as Error).message;
    throw new ConfigError((name) => `${key} for ${marketplace} from ${typeof from === 'string' ? from : from(name)}: ${reason}`, { setting: { key } });
  }
}

/**
 * The location key, policy ids and condition in effect for one marketplace. Precedence by layer, as everywhere:
 * flag > env > profile; within the env and profile layers the marketplace's own value (LISTINGS_EBAY_GB_..., the
 * profile's EBAY_GB section) beats the general one. A flag applies to every marketplace. Pure.
 */
export function resolveMarketplaceSettings(layers: MarketplaceLayers, marketplace: string): MarketplaceSettings {
  const name = sectionName(marketplace);
  const section = layers.sections[name] ?? {};
  const resolved: MarketplaceSettings = {};
  for (const key of PER_MARKETPLACE_KEYS) {
    const option = OPTION_BY_KEY.get(key)!;
    const fromFlag = layers.flags[key];
    const ownEnvName = marketplaceEnv(name, key);
    const ownEnv = layers.env[ownEnvName];
    const generalEnv = layers.env[option.env];
    const ownProfile = section[key];
    const generalProfile = layers.profile[key];
    if (fromFlag !== undefined) resolved[key] = { value: parsed(key, fromFlag, name, givenForRun(key)), source: 'flag', own: false };
    else if (ownEnv !== undefined && ownEnv !== '') resolved[key] = { value: parsed(key, ownEnv, name, ownEnvName), source: 'env', own: true };
    else if (generalEnv !== undefined && generalEnv !== '') resolved[key] = { value: parsed(key, generalEnv, name, option.env), source: 'env', own: false };
    else if (ownProfile !== undefined) resolved[key] = { value: parsed(key, ownProfile, name, `the profile's ${name} section`), source: 'profile', own: true };
    else if (generalProfile !== undefined) resolved[key] = { value: parsed(key, generalProfile, name, 'the profile'), source: 'profile', own: false };
  }
  return resolved;
}

/** True when a marketplace has a value of its own in effect (else it simply shares the general defaults). */
export function hasOwnValue(settings: MarketplaceSettings): boolean {
  for (const key of PER_MARKETPLACE_KEYS) if (settings[key]?.own === true) return true;
  return false;
}
