import { Option } from 'commander';
import { PER_MARKETPLACE_KEYS, sectionName, splitMarketplaces, type Settings, type SettingKey } from '../config/options.js';
import { FLAGS } from '../options/index.js';
import { flagsText } from './flags.js';
import { resolveSettings, type ResolvedSettings } from '../config/resolve.js';
import { envMarketplaces, hasOwnValue, resolveMarketplaceSettings, type MarketplaceSettings } from '../config/marketplace-settings.js';
import { ConfigError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import type { ListingDefaults, MarketplaceDefaults } from '../prepare/types.js';
import type { ProfileStore } from '../config/store.js';

/** Settings after flag > env > profile > built-in, with what the commands need from them. */
export interface LoadedSettings extends ResolvedSettings {
  settings: Settings;
  profile: string;
  store: ProfileStore;
  defaults: ListingDefaults;
  /**
   * The per-marketplace settings in effect, by section name: for every marketplace of the run and every one with
   * a profile section or environment variables of its own (with where each value came from).
   */
  marketplaces: Record<string, MarketplaceSettings>;
  allowInsecureHttp: boolean;
  /** The API key from the environment variable named by api_key_env (or the profile); ConfigError when unset. */
  apiKey(): string;
  /** The base URL; ConfigError when unset. */
  baseUrl(): string;
}

/** The settings the flags gave, by key (the options of the table that set one). */
export function flagValues(opts: Record<string, unknown>): Partial<Record<SettingKey, unknown>> {
  const flags: Partial<Record<SettingKey, unknown>> = {};
  for (const spec of FLAGS) {
    if (spec.setting === undefined) continue;
    const value = opts[new Option(flagsText(spec)).attributeName()];
    if (value !== undefined) flags[spec.setting] = value;
  }
  return flags;
}

export async function loadSettings(opts: Record<string, unknown>, env: Record<string, string | undefined> = process.env): Promise<LoadedSettings> {
  const { ProfileStore } = await import('../config/store.js');
  const store = await ProfileStore.open(env);
  const explicit = typeof opts.profile === 'string' ? opts.profile : undefined;
  const profile = store.activeProfile(explicit, env);
  if ((explicit !== undefined || env.LISTINGS_PROFILE) && !store.profileNames().includes(profile)) {
    throw new ConfigError(`no profile named ${JSON.stringify(profile)}`, { hint: `known profiles: ${store.profileNames().join(', ')}; create it with: listings config set --profile ${profile} KEY VALUE` });
  }
  const flags = flagValues(opts);
  const profileValues = store.values(profile);
  const resolved = resolveSettings({ flags, env, profile: profileValues });
  const settings = resolved.values;
  registerSecret(settings.api_key);
  const defaults: ListingDefaults = { shape: settings.shape, saved_defaults: settings.saved_defaults };
  if (settings.image_base_url !== undefined) defaults.image_base_url = settings.image_base_url;
  const runMarketplaces = splitMarketplaces(settings.marketplace);
  if (runMarketplaces.length === 1) defaults.marketplace = runMarketplaces[0]!;
  else if (runMarketplaces.length > 1) defaults.marketplaces = runMarketplaces;
  for (const key of PER_MARKETPLACE_KEYS) {
    const value = settings[key];
    if (value !== undefined) defaults[key] = value;
  }
  // Each marketplace's own defaults: the run's, and every one a profile section or an environment variable names.
  const sections = store.sections(profile);
  const names = new Set([...runMarketplaces.map(sectionName), ...Object.keys(sections), ...envMarketplaces(env)]);
  const marketplaces: Record<string, MarketplaceSettings> = {};
  const perMarketplace: Record<string, MarketplaceDefaults> = {};
  for (const name of [...names].sort()) {
    const own = resolveMarketplaceSettings({ flags, env, profile: profileValues, sections }, name);
    marketplaces[name] = own;
    if (!hasOwnValue(own)) continue;
    const values: MarketplaceDefaults = {};
    for (const key of PER_MARKETPLACE_KEYS) {
      const setting = own[key];
      if (setting !== undefined) values[key] = setting.value;
    }
    perMarketplace[name] = values;
  }
  if (Object.keys(perMarketplace).length > 0) defaults.per_marketplace = perMarketplace;
  return {
    ...resolved,
    settings,
    profile,
    store,
    defaults,
    marketplaces,
    allowInsecureHttp: opts.allowInsecureHttp === true,
    apiKey() {
      const key = env[settings.api_key_env] || settings.api_key;
      if (!key) {
        throw new ConfigError(`no API key: the environment variable ${settings.api_key_env} is not set`, {
          hint: `export ${settings.api_key_env}=<key from the dashboard> (or name another variable with --api-key-env)`,
        });
      }
      registerSecret(key);
      return key;
    },
    baseUrl() {
      if (settings.base_url === undefined) {
        throw new ConfigError('no base_url: the service address is not configured', {
          hint: 'listings config set base_url https://..., or --base-url, or LISTINGS_BASE_URL (try --sandbox or `listings sandbox` to run offline)',
        });
      }
      return settings.base_url;
    },
  };
}
