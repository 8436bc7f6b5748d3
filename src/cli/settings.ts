import type { Command } from 'commander';
import { OPTIONS, attributeName, type Settings, type SettingKey } from '../config/options.js';
import { resolveSettings, type ResolvedSettings } from '../config/resolve.js';
import { ConfigError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import type { ListingDefaults } from '../prepare/types.js';
import type { ProfileStore } from '../config/store.js';

/** Add the settings flags (from the one options table) plus --profile and --allow-insecure-http to a command. */
export function addSettingsOptions(command: Command): Command {
  command.option('--profile <name>', 'config profile to use (env LISTINGS_PROFILE)');
  for (const option of OPTIONS) {
    if (option.flag === undefined) continue;
    command.option(option.flag, `${option.description} (env ${option.env})`);
    if (!option.flag.includes('<')) command.option(option.flag.replace('--', '--no-'), `set ${option.key} to false (overrides env and profile)`);
  }
  command.option('--allow-insecure-http', 'allow plain http to a host that is not loopback (the key crosses the network in clear)');
  return command;
}

/** Settings after flag > env > profile > built-in, with what the commands need from them. */
export interface LoadedSettings extends ResolvedSettings {
  settings: Settings;
  profile: string;
  store: ProfileStore;
  defaults: ListingDefaults;
  allowInsecureHttp: boolean;
  /** The API key from the environment variable named by api_key_env (or the profile); ConfigError when unset. */
  apiKey(): string;
  /** The base URL; ConfigError when unset. */
  baseUrl(): string;
}

export function flagValues(opts: Record<string, unknown>): Partial<Record<SettingKey, unknown>> {
  const flags: Partial<Record<SettingKey, unknown>> = {};
  for (const option of OPTIONS) {
    if (option.flag === undefined) continue;
    const value = opts[attributeName(option.flag)];
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
  const resolved = resolveSettings({ flags: flagValues(opts), env, profile: store.values(profile) });
  const settings = resolved.values;
  registerSecret(settings.api_key);
  const defaults: ListingDefaults = { shape: settings.shape, saved_defaults: settings.saved_defaults };
  for (const key of ['marketplace', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id', 'condition'] as const) {
    const value = settings[key];
    if (value !== undefined) defaults[key] = value;
  }
  return {
    ...resolved,
    settings,
    profile,
    store,
    defaults,
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
