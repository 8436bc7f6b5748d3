import { PER_MARKETPLACE_KEYS, sectionName, splitMarketplaces, type Settings, type SettingKey } from '../config/options.js';
import { resolveSettings, type ResolvedSettings } from '../config/resolve.js';
import { envMarketplaces, hasOwnValue, resolveMarketplaceSettings, type MarketplaceSettings } from '../config/marketplace-settings.js';
import { noSuchProfile, ProfileStore } from '../config/store.js';
import { ConfigError } from '../errors.js';
import { looksLikeKey, registerSecret, headerValueFault } from '../secrets.js';
import type { ListingDefaults, MarketplaceDefaults } from '../prepare/types.js';

type Env = Record<string, string | undefined>;

/** What a command asks of the settings: the values given for this run, by setting, and the profile it names. */
export interface SettingsRequest {
  /** The values given for this run (the CLI's flags), by setting key; they win over env, profile and default. */
  given: Partial<Record<SettingKey, unknown>>;
  /** The profile named for this run; else LISTINGS_PROFILE, else the active one. */
  profile?: string | undefined;
  /** Plain http to a host that is not loopback is allowed for this run. */
  allowInsecureHttp?: boolean | undefined;
}

/** Settings after given > env > profile > built-in, with what the commands need from them. */
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

/** The listing defaults of a run, and each marketplace's own, from the settings in effect. */
function listingDefaults(settings: Settings, request: SettingsRequest, env: Env, store: ProfileStore, profile: string) {
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
    const own = resolveMarketplaceSettings({ flags: request.given, env, profile: store.values(profile), sections }, name);
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
  return { defaults, marketplaces };
}

/**
 * The settings in effect for a command: the profile (named, else LISTINGS_PROFILE, else the active one; a named one
 * must exist), each setting resolved given > env > profile > default, the listing defaults, each marketplace's own.
 * The raw API key of a profile is registered as a secret.
 */
export async function loadSettings(request: SettingsRequest, env: Env = process.env): Promise<LoadedSettings> {
  const store = await ProfileStore.open(env);
  const profile = store.activeProfile(request.profile, env);
  if ((request.profile !== undefined || env.LISTINGS_PROFILE) && !store.profileNames().includes(profile)) throw noSuchProfile(profile, store.profileNames());
  const resolved = resolveSettings({ flags: request.given, env, profile: store.values(profile) });
  const settings = resolved.values;
  registerSecret(settings.api_key);
  // A key pasted where a variable's name goes is still a key: masked wherever it might be shown.
  const keyAsName = looksLikeKey(settings.api_key_env);
  if (keyAsName) registerSecret(settings.api_key_env);
  return {
    ...resolved,
    settings,
    profile,
    store,
    ...listingDefaults(settings, request, env, store, profile),
    allowInsecureHttp: request.allowInsecureHttp === true,
    apiKey() {
      const key = env[settings.api_key_env] || settings.api_key;
      if (!key && keyAsName) {
        throw new ConfigError((name) => `${name('api_key_env')} takes the name of the variable that holds the key: that looks like a key, not the name of a variable`, {
          hint: (name) => `export LISTINGS_API_KEY=<key> and leave out ${name('api_key_env')}, or export the key under a name of your own and pass that name`,
        });
      }
      if (!key) {
        throw new ConfigError(`no API key: the environment variable ${settings.api_key_env} is not set`, {
          hint: (name) => `export ${settings.api_key_env}=<key from the dashboard> (or name another variable with ${name('api_key_env')})`,
        });
      }
      registerSecret(key);
      const fault = headerValueFault(key);
      const from = env[settings.api_key_env] ? settings.api_key_env : 'the api_key of the profile';
      if (fault !== undefined) throw new ConfigError(`the API key in ${from} ${fault}`, { hint: 'set it to the key alone (was a line break copied with it?)' });
      return key;
    },
    baseUrl() {
      if (settings.base_url === undefined) {
        throw new ConfigError('no base_url: the service address is not configured', {
          hint: (name) => `listings config set base_url https://..., or ${name('base_url')}, or LISTINGS_BASE_URL (try ${name('sandbox')} or \`listings sandbox\` to run offline)`,
        });
      }
      return settings.base_url;
    },
  };
}
