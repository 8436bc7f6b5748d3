import { Option, type Command } from 'commander';
import { commandPath, GROUP } from './help.js';
import { OPTIONS, PER_MARKETPLACE_KEYS, attributeName, sectionName, splitMarketplaces, type Settings, type SettingKey } from '../config/options.js';
import { settingFlag } from './setting-flags.js';
import { resolveSettings, type ResolvedSettings } from '../config/resolve.js';
import { envMarketplaces, hasOwnValue, resolveMarketplaceSettings, type MarketplaceSettings } from '../config/marketplace-settings.js';
import { ConfigError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import type { ListingDefaults, MarketplaceDefaults } from '../prepare/types.js';
import type { ProfileStore } from '../config/store.js';

const SERVICE: readonly SettingKey[] = ['base_url', 'api_key_env'];
const LISTING: readonly SettingKey[] = ['marketplace', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id', 'condition', 'shape', 'saved_defaults'];
const FLOW: readonly SettingKey[] = ['concurrency', 'max_concurrency'];

/** Which settings a command reads: it shows (and accepts) the flags of these only. */
interface SettingsUse {
  keys: readonly SettingKey[];
  /** The command sends requests to base_url (or stores it): it takes --allow-insecure-http. */
  sends: boolean;
  /** What --profile means for it, when not the profile read. */
  profile?: string;
}

/** The settings of each command, by command path; a command that reads none is not here. */
const SETTINGS_USED: Readonly<Record<string, SettingsUse>> = {
  publish: { keys: [...SERVICE, ...LISTING, ...FLOW], sends: true },
  stream: { keys: [...SERVICE, ...LISTING, ...FLOW], sends: true },
  validate: { keys: LISTING, sends: false },
  enqueue: { keys: LISTING, sends: false },
  create: { keys: [...SERVICE, ...LISTING], sends: true },
  doctor: { keys: SERVICE, sends: true },
  init: { keys: [...SERVICE, ...LISTING], sends: true, profile: 'profile to write (default: the active one; a new name makes a new profile)' },
  'config list': { keys: OPTIONS.map((option) => option.key), sends: false },
};

/** The help group of a setting's flag. */
function groupOf(key: SettingKey): string {
  return LISTING.includes(key) ? GROUP.listing : GROUP.sending;
}

/**
 * Add the flags of the settings the command reads (from the one options table, in SETTINGS_USED), plus --profile
 * and, for a command that sends, --allow-insecure-http; each in its help group.
 */
export function addSettingsOptions(command: Command): Command {
  const path = commandPath(command);
  const use = SETTINGS_USED[path];
  if (use === undefined) throw new Error(`addSettingsOptions: no settings declared for the command ${JSON.stringify(path)} in SETTINGS_USED`);
  for (const option of OPTIONS) {
    const flag = settingFlag(option);
    if (flag === undefined || !use.keys.includes(option.key)) continue;
    const group = groupOf(option.key);
    command.addOption(new Option(flag, `${option.description} (env ${option.env})`).helpGroup(group));
    if (option.perRun === true) command.addOption(new Option(flag.replace('--', '--no-'), `set ${option.key} to false (overrides env and profile)`).helpGroup(group));
  }
  if (use.sends) {
    command.addOption(new Option('--allow-insecure-http', 'allow plain http to a host that is not loopback (the key crosses the network in clear)').helpGroup(GROUP.sending));
  }
  command.addOption(new Option('--profile <name>', use.profile ?? 'config profile to use (env LISTINGS_PROFILE)').helpGroup(GROUP.profile));
  return command;
}

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

export function flagValues(opts: Record<string, unknown>): Partial<Record<SettingKey, unknown>> {
  const flags: Partial<Record<SettingKey, unknown>> = {};
  for (const option of OPTIONS) {
    const flag = settingFlag(option);
    if (flag === undefined) continue;
    const value = opts[attributeName(flag)];
    if (value !== undefined) flags[option.key] = value;
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
