import { ConfigError } from '../errors.js';
import type Conf from 'conf';
import type { SettingKey, SettingValue } from './options.js';

/** What the config file holds: named profiles and which one is in use. */
interface StoreData {
  current_profile?: string;
  profiles: Record<string, Partial<Record<SettingKey, SettingValue>>>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

type ConfInstance = Conf<StoreData>;

/**
 * The profiles file on `conf`. The directory comes from LISTINGS_CONFIG_DIR when set, so tests and CI never touch
 * the real home. The file is always written 0600: a profile may hold a raw key.
 */
export class ProfileStore {
  private constructor(private readonly conf: ConfInstance) {}

  /** conf (and its JSON-schema machinery) loads here, not at start-up. */
  static async open(env: Record<string, string | undefined> = process.env): Promise<ProfileStore> {
    const { default: ConfClass } = await import('conf');
    const dir = env.LISTINGS_CONFIG_DIR;
    try {
      const conf = new ConfClass<StoreData>({
        projectName: 'listings',
        projectSuffix: '',
        configName: 'config',
        configFileMode: 0o600,
        defaults: { profiles: {} },
        ...(dir ? { cwd: dir } : {}),
      });
      return new ProfileStore(conf);
    } catch (error) {
      throw new ConfigError(`cannot read the config file: ${(error as Error).message}`, { cause: error });
    }
  }

  get path(): string {
    return this.conf.path;
  }

  /** The active profile: the explicit name, else LISTINGS_PROFILE, else the one chosen by `config use`. */
  activeProfile(explicit?: string, env: Record<string, string | undefined> = process.env): string {
    return explicit ?? (env.LISTINGS_PROFILE || undefined) ?? this.conf.get('current_profile') ?? DEFAULT_PROFILE;
  }

  profileNames(): string[] {
    const names = new Set(Object.keys(this.conf.get('profiles')));
    names.add(DEFAULT_PROFILE);
    return [...names].sort();
  }

  values(profile: string): Partial<Record<SettingKey, SettingValue>> {
    return { ...(this.conf.get('profiles')[profile] ?? {}) };
  }

  set(profile: string, key: SettingKey, value: SettingValue): void {
    checkProfileName(profile);
    const profiles = this.conf.get('profiles');
    profiles[profile] = { ...(profiles[profile] ?? {}), [key]: value };
    this.conf.set('profiles', profiles);
  }

  unset(profile: string, key: SettingKey): boolean {
    const profiles = this.conf.get('profiles');
    const values = profiles[profile];
    if (!values || !(key in values)) return false;
    delete values[key];
    this.conf.set('profiles', profiles);
    return true;
  }

  use(profile: string): void {
    checkProfileName(profile);
    this.conf.set('current_profile', profile);
  }
}

function checkProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) throw new ConfigError(`not a valid profile name: ${JSON.stringify(name)}`, { hint: 'use letters, digits, - _ .' });
}
