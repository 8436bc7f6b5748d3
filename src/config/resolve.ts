import { ConfigError, type SettingText } from '../errors.js';
import { OPTIONS, type Settings, type SettingSource, type SettingValue, type SettingKey } from './options.js';

/** The raw inputs of resolution, each keyed by setting key. */
export interface SettingLayers {
  /** Values from command-line flags, already parsed by commander (strings, or booleans for switches). */
  flags: Partial<Record<SettingKey, unknown>>;
  /** The process environment. */
  env: Record<string, string | undefined>;
  /** The active profile's stored values. */
  profile: Partial<Record<SettingKey, unknown>>;
}

export interface ResolvedSettings {
  values: Settings;
  sources: Partial<Record<SettingKey, SettingSource>>;
}

/**
 * Where a value given for the run came from, worded by the caller: the CLI's flag (`--max-concurrency`), or for a
 * library caller the setting it passed.
 */
export function givenForRun(key: SettingKey): SettingText {
  return (name) => {
    const named = name(key);
    return named === key ? `the ${key} given for the run` : named;
  };
}

function coerce(key: SettingKey, raw: unknown, from: string | SettingText): SettingValue {
  const option = OPTIONS.find((o) => o.key === key)!;
  if (typeof raw === 'boolean' || typeof raw === 'number') raw = String(raw);
  try {
    return option.parse(String(raw));
  } catch (error) {
    const reason = (error as Error).message;
    throw new ConfigError((name) => `${key} from ${typeof from === 'string' ? from : from(name)}: ${reason}`, { setting: { key } });
  }
}

/**
 * The one precedence rule of the settings: flag > env > profile > built-in default. Pure: everything it reads is
 * passed in. (A catalog row's own values still win over all of these, later, in prepare.)
 */
export function resolveSettings(layers: SettingLayers): ResolvedSettings {
  const values: Record<string, SettingValue> = {};
  const sources: Partial<Record<SettingKey, SettingSource>> = {};
  for (const option of OPTIONS) {
    const { key } = option;
    const fromFlag = option.perRun === undefined ? undefined : layers.flags[key];
    const fromEnv = layers.env[option.env];
    const fromProfile = layers.profile[key];
    if (fromFlag !== undefined) {
      values[key] = coerce(key, fromFlag, givenForRun(key));
      sources[key] = 'flag';
    } else if (fromEnv !== undefined && fromEnv !== '') {
      values[key] = coerce(key, fromEnv, option.env);
      sources[key] = 'env';
    } else if (fromProfile !== undefined) {
      values[key] = coerce(key, fromProfile, 'the profile');
      sources[key] = 'profile';
    } else if (option.default !== undefined) {
      values[key] = option.default;
      sources[key] = 'default';
    }
  }
  return { values: values as unknown as Settings, sources };
}
