import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import type Conf from 'conf';
import { ConfigError } from '../errors.js';
import { makeDirs } from '../fs/output-target.js';
import { sectionName, type MarketplaceSettingKey, type SettingKey, type SettingValue } from './options.js';
import type { MarketplaceSections } from './marketplace-settings.js';

/** One profile: its settings, and the defaults of each marketplace that has its own (`marketplaces.EBAY_GB`). */
type StoredProfile = Partial<Record<SettingKey, SettingValue>> & { marketplaces?: MarketplaceSections };

/** What the config file holds: named profiles and which one is in use. */
interface StoreData {
  current_profile?: string;
  profiles: Record<string, StoredProfile>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const PROJECT = 'listings';
const FILE = 'config.json';

/** The directory of the config file: LISTINGS_CONFIG_DIR, else the user's config directory (as conf places it). */
function configDir(env: Record<string, string | undefined>): string {
  return env.LISTINGS_CONFIG_DIR || envPaths(PROJECT, { suffix: '' }).config;
}

/**
 * The profiles file. Reading is a plain JSON read (every command reads settings, and conf with its JSON-schema
 * machinery costs ~16 MB and start-up time); writing goes through `conf`, loaded only by the commands that write,
 * which keeps the file's atomic writes and its 0600 mode (a profile may hold a raw key); its folders are made 0700. The directory comes from
 * LISTINGS_CONFIG_DIR when set, so tests and CI never touch the real home.
 */
export class ProfileStore {
  #data: StoreData;
  #conf: Conf<StoreData> | undefined;

  private constructor(readonly path: string, data: StoreData) {
    this.#data = data;
  }

  static async open(env: Record<string, string | undefined> = process.env): Promise<ProfileStore> {
    const path = join(configDir(env), FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new ProfileStore(path, { profiles: {} });
      throw new ConfigError(`cannot read the config file ${path}: ${(error as Error).message}`, { cause: error });
    }
    let data: unknown;
    try {
      data = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`the config file ${path} is not valid JSON`, { cause: error, hint: 'fix it, or remove it to start afresh' });
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`the config file ${path} does not hold an object`);
    const record = data as Partial<StoreData>;
    return new ProfileStore(path, { ...record, profiles: record.profiles ?? {} });
  }

  /**
   * The active profile: the explicit name, else LISTINGS_PROFILE, else the one chosen by `config use`. A name that
   * is not a valid profile name is refused, wherever it came from (a config file may have been edited by hand).
   */
  activeProfile(explicit?: string, env: Record<string, string | undefined> = process.env): string {
    if (explicit !== undefined) return checkProfileName(explicit);
    if (env.LISTINGS_PROFILE) return checkProfileName(env.LISTINGS_PROFILE, 'LISTINGS_PROFILE');
    const current = this.#data.current_profile;
    if (current === undefined) return DEFAULT_PROFILE;
    return checkProfileName(String(current), `current_profile in ${this.path}`, 'name a valid profile as current_profile (letters, digits, - _ .), or remove it');
  }

  /** The profiles of the file with a valid name, and the default one. */
  profileNames(): string[] {
    const names = new Set(Object.keys(this.#data.profiles).filter((name) => PROFILE_NAME.test(name)));
    names.add(DEFAULT_PROFILE);
    return [...names].sort();
  }

  /** The profiles of the file whose name is not valid (the file was edited by hand): never used, never offered. */
  invalidProfileNames(): string[] {
    return Object.keys(this.#data.profiles).filter((name) => !PROFILE_NAME.test(name));
  }

  values(profile: string): Partial<Record<SettingKey, SettingValue>> {
    const { marketplaces: _sections, ...values } = this.#data.profiles[profile] ?? {};
    return values;
  }

  /** The profile's marketplace sections (each marketplace's own defaults), by section name. */
  sections(profile: string): MarketplaceSections {
    const sections = this.#data.profiles[profile]?.marketplaces;
    if (sections === undefined || typeof sections !== 'object' || sections === null) return {};
    const copy: MarketplaceSections = {};
    for (const [name, values] of Object.entries(sections)) if (typeof values === 'object' && values !== null) copy[name] = { ...values };
    return copy;
  }

  /** Store one marketplace's own value in the profile's section for it. */
  async setSection(profile: string, marketplace: string, key: MarketplaceSettingKey, value: string): Promise<void> {
    checkProfileName(profile);
    const conf = await this.#writer();
    const profiles = conf.get('profiles');
    const stored = profiles[profile] ?? {};
    const sections = { ...(stored.marketplaces ?? {}) };
    const name = sectionName(marketplace);
    sections[name] = { ...(sections[name] ?? {}), [key]: value };
    profiles[profile] = { ...stored, marketplaces: sections };
    conf.set('profiles', profiles);
    this.#data = conf.store;
  }

  /** Remove one marketplace's own value; false when it was not set. An emptied section goes too. */
  async unsetSection(profile: string, marketplace: string, key: MarketplaceSettingKey): Promise<boolean> {
    const conf = await this.#writer();
    const profiles = conf.get('profiles');
    const stored = profiles[profile];
    const name = sectionName(marketplace);
    const section = stored?.marketplaces?.[name];
    if (stored === undefined || section === undefined || !(key in section)) return false;
    delete section[key];
    if (Object.keys(section).length === 0) delete stored.marketplaces![name];
    if (Object.keys(stored.marketplaces!).length === 0) delete stored.marketplaces;
    conf.set('profiles', profiles);
    this.#data = conf.store;
    return true;
  }

  async set(profile: string, key: SettingKey, value: SettingValue): Promise<void> {
    checkProfileName(profile);
    const conf = await this.#writer();
    const profiles = conf.get('profiles');
    profiles[profile] = { ...(profiles[profile] ?? {}), [key]: value };
    conf.set('profiles', profiles);
    this.#data = conf.store;
  }

  async unset(profile: string, key: SettingKey): Promise<boolean> {
    const conf = await this.#writer();
    const profiles = conf.get('profiles');
    const values = profiles[profile];
    if (!values || !(key in values)) return false;
    delete values[key];
    conf.set('profiles', profiles);
    this.#data = conf.store;
    return true;
  }

  async use(profile: string): Promise<void> {
    checkProfileName(profile);
    const conf = await this.#writer();
    conf.set('current_profile', profile);
    this.#data = conf.store;
  }

  async #writer(): Promise<Conf<StoreData>> {
    if (this.#conf) return this.#conf;
    const { default: ConfClass } = await import('conf');
    try {
      // conf would make the folders with the umask's mode (0777 under umask 000): made here first, the user's alone.
      await makeDirs(dirname(this.path), { private: true });
      this.#conf = new ConfClass<StoreData>({
        projectName: PROJECT,
        cwd: dirname(this.path),
        configName: FILE.replace(/\.json$/, ''),
        configFileMode: 0o600,
        defaults: { profiles: {} },
      });
    } catch (error) {
      throw new ConfigError(`cannot write the config file ${this.path}: ${(error as Error).message}`, { cause: error });
    }
    return this.#conf;
  }
}

/** The name, when it is a valid profile name; else a ConfigError that says where it came from (`from`). */
export function checkProfileName(name: string, from?: string, hint = 'use letters, digits, - _ .'): string {
  if (PROFILE_NAME.test(name)) return name;
  throw new ConfigError(`not a valid profile name${from === undefined ? '' : ` (${from})`}: ${JSON.stringify(name)}`, { hint });
}
