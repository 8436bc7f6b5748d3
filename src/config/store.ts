import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import type Conf from 'conf';
import { ConfigError } from '../errors.js';
import { hasControl, printable } from '../printable.js';
import { makeDirs } from '../fs/output-target.js';
import { readSmallText } from '../fs/small-text.js';
import { JsonDuplicateKeyError, MAX_JSON_DEPTH, TOO_DEEP, parseJsonRecord, scanJsonText } from '../json-text.js';
import { didYouMean } from '../did-you-mean.js';
import { OPTIONS, OPTION_BY_KEY, PER_MARKETPLACE_KEYS, isMarketplaceSettingKey, parseMarketplaceId, sectionName, type MarketplaceSettingKey, type SettingKey, type SettingValue } from './options.js';
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
/** A config file holds a few profiles of a dozen short settings: one this large was not written by this tool. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The directory of the config file: LISTINGS_CONFIG_DIR, else the user's config directory (as conf places it). */
function configDir(env: Record<string, string | undefined>): string {
  const given = env.LISTINGS_CONFIG_DIR;
  // Shown by `config path`, `config list` and doctor: a line break or an escape in it would forge their lines.
  if (given !== undefined && hasControl(given)) {
    throw new ConfigError(`LISTINGS_CONFIG_DIR holds a control, line-break or direction character (${JSON.stringify(printable(given, { lines: false }).slice(0, 200))}): set it to a plain folder path`);
  }
  return given || envPaths(PROJECT, { suffix: '' }).config;
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
  /** The file read was empty or began with a byte order mark, which conf cannot parse: written anew before it is opened. */
  #rewrite = false;

  private constructor(readonly path: string, data: StoreData) {
    this.#data = data;
  }

  static async open(env: Record<string, string | undefined> = process.env): Promise<ProfileStore> {
    const path = join(configDir(env), FILE);
    let text: string;
    try {
      text = await readSmallText(path, MAX_CONFIG_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new ProfileStore(path, { profiles: {} });
      throw new ConfigError(`cannot read the config file ${path}: ${(error as Error).message}`, { cause: error });
    }
    // Refused before it is parsed: what parses it again (conf, at the next `config set`) would run out of stack.
    if (scanJsonText(text).depth > MAX_JSON_DEPTH) throw new ConfigError(`the config file ${path} ${TOO_DEEP}`, { hint: 'fix it by hand, or remove it to start afresh' });
    // An editor may save it with a byte order mark (RFC 8259 lets a parser ignore one).
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    let data: unknown;
    try {
      data = json.trim() === '' ? {} : JSON.parse(json);
    } catch (error) {
      throw new ConfigError(`the config file ${path} is not valid JSON`, { cause: error, hint: 'fix it, or remove it to start afresh' });
    }
    const twice = duplicateKey(json);
    if (twice !== undefined) throw new ConfigError(`the config file ${path} ${twice}`, { hint: 'fix it by hand: keep the one value meant' });
    const wrong = shapeProblem(data);
    if (wrong !== undefined) throw new ConfigError(`the config file ${path}: ${wrong}`, { hint: 'fix it by hand, or remove it to start afresh' });
    const record = data as Partial<StoreData>;
    const store = new ProfileStore(path, { ...record, profiles: record.profiles ?? {} });
    store.#rewrite = json !== text || json.trim() === '';
    return store;
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
    const name = checkProfileName(String(current), `current_profile in ${this.path}`, `name a valid profile as current_profile (${NAME_RULE}), or remove it`);
    // Only a hand edit names a profile the file does not hold (`config use` refuses one): read as empty, every
    // setting of the profile meant would be missing in silence.
    if (name !== DEFAULT_PROFILE && !Object.hasOwn(this.#data.profiles, name)) {
      throw new ConfigError(`current_profile in ${this.path} names the profile ${JSON.stringify(name)}, which the file does not hold`, {
        hint: `known profiles: ${this.profileNames().join(', ')}; make one active with: listings config use NAME`,
      });
    }
    return name;
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
      if (this.#rewrite) await writeFile(this.path, `${JSON.stringify(this.#data, undefined, '\t')}\n`);
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

/** Why a JSON text holds a key twice in one object (JSON.parse keeps the last value in silence), or undefined. */
function duplicateKey(json: string): string | undefined {
  try {
    if (json.trim() !== '') parseJsonRecord(json);
  } catch (error) {
    if (error instanceof JsonDuplicateKeyError) return error.message;
  }
  return undefined;
}

/** A profile asked for by name that the file does not hold: the known ones, and how to make it. */
export function noSuchProfile(profile: string, known: readonly string[]): ConfigError {
  return new ConfigError(`no profile named ${JSON.stringify(profile)}`, {
    hint: (name) => `known profiles: ${known.join(', ')}; create it with: listings config set ${name('profile')} ${profile} KEY VALUE`,
  });
}

/** What makes a profile name, for the messages that refuse one. */
const NAME_RULE = 'letters, digits, - _ ., at most 64 characters, starting with a letter or digit';

/** A name that is not a valid profile name, quoted and, past the longest valid one, cut short (it came from outside). */
export function shownProfileName(name: string): string {
  return name.length <= 64 ? JSON.stringify(name) : `${JSON.stringify(name.slice(0, 64)).slice(0, -1)}..." (${name.length} characters)`;
}

/** The name, when it is a valid profile name; else a ConfigError that says where it came from (`from`). */
export function checkProfileName(name: string, from?: string, hint = `use ${NAME_RULE}`): string {
  if (PROFILE_NAME.test(name)) return name;
  throw new ConfigError(`not a valid profile name${from === undefined ? '' : ` (${from})`}: ${shownProfileName(name)}`, { hint });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * Why a number or true/false given for a setting would not be kept as written, or undefined. A text setting (an id,
 * a key, a URL) must be a JSON string: a number was already rounded by the JSON reader past 2^53, and `1e3` or
 * `6196.0` would be sent as `1000` or `6196`; `true` for an API key would be sent as the text "true". A whole-number
 * setting takes a safe whole number, an on/off setting true or false.
 */
function keptAsWritten(key: string, value: unknown): string | undefined {
  if (typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const option = OPTIONS.find((candidate) => candidate.key === key);
  if (option === undefined) return undefined;
  let parsed: SettingValue;
  try {
    parsed = option.parse(String(value));
  } catch {
    // The setting's own check names what is wrong with the value when it is read.
    return undefined;
  }
  if (typeof parsed === typeof value && (typeof value !== 'number' || Number.isSafeInteger(value))) return undefined;
  if (typeof parsed === 'string') return `is ${describe(value)}, not text: write it in quotes as it reads in the dashboard (it was read as "${String(value)}"), so that it is sent exactly as written`;
  return `is ${describe(value)}: write ${typeof parsed === 'boolean' ? 'true or false' : 'a whole number'}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A key of the file as it is named in a message: `.base_url`, or quoted (`["x\\n"]`) and cut short when it is not a plain name. */
function member(key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key)) return `.${key}`;
  return `[${shownProfileName(key)}]`;
}

/** Why a key of a profile (or, with `section`, of a marketplace's section) is not one this tool reads, or undefined. */
function unknownKey(key: string, section: boolean): string | undefined {
  if (section ? isMarketplaceSettingKey(key) : OPTION_BY_KEY.has(key) || key === 'marketplaces') return undefined;
  const known = section ? PER_MARKETPLACE_KEYS : [...OPTION_BY_KEY.keys()];
  const guess = key.length <= 64 ? didYouMean(key, known) : undefined;
  if (guess !== undefined) return `is not a setting${section ? ' a marketplace has of its own' : ''}, so it would be ignored: did you mean ${guess}?`;
  return `is not a setting${section ? ' a marketplace has of its own' : ''}, so it would be ignored (${section ? 'a section takes' : 'settings:'} ${known.join(', ')})`;
}

/** Why a marketplace section's name is not one its marketplace is looked up by (`EBAY_GB`), or undefined. */
function sectionNameProblem(name: string): string | undefined {
  let id: string;
  try {
    id = parseMarketplaceId(name);
  } catch {
    return 'is not a marketplace id such as EBAY_GB, so the section would be ignored';
  }
  if (id !== sectionName(id)) return `would be ignored: a section is looked up by its marketplace in upper case; name it ${JSON.stringify(sectionName(id))}`;
  return undefined;
}

/**
 * What in a config file (edited by hand) is not of the shape this tool reads and writes, or undefined: an object;
 * `current_profile` a string; `profiles` an object of profiles, each an object of setting -> string, number or
 * boolean, and its `marketplaces` an object of sections (named as they are looked up: `EBAY_GB`), each an object of
 * a marketplace's own settings. Anything else would be read as nothing (a misspelt key or section, ignored in
 * silence), or as a value it is not (`[4]` as 4), or crash or be lost at the next `config set`.
 */
function shapeProblem(data: unknown): string | undefined {
  if (!isObject(data)) return `it holds ${describe(data)}, not an object`;
  // conf keeps its own bookkeeping under __internal__ (it never writes it here, but would keep it).
  for (const key of Object.keys(data)) {
    if (key === 'current_profile' || key === 'profiles' || key === '__internal__') continue;
    const guess = key.length <= 64 ? didYouMean(key, ['current_profile', 'profiles']) : undefined;
    return `${member(key).replace(/^\./, '')} is not a key of this file, so it would be ignored${guess === undefined ? ' (it holds current_profile and profiles)' : `: did you mean ${guess}?`}`;
  }
  if (data.current_profile !== undefined && typeof data.current_profile !== 'string') return `current_profile is ${describe(data.current_profile)}, not a profile name`;
  const { profiles } = data;
  if (profiles === undefined) return undefined;
  if (!isObject(profiles)) return `profiles is ${describe(profiles)}, not an object of profiles`;
  for (const [name, profile] of Object.entries(profiles)) {
    const at = `profiles[${shownProfileName(name)}]`;
    if (!isObject(profile)) return `${at} is ${describe(profile)}, not an object of settings`;
    for (const [key, value] of Object.entries(profile)) {
      const unknown = unknownKey(key, false);
      if (unknown !== undefined) return `${at}${member(key)} ${unknown}`;
      if (key === 'marketplaces') {
        if (!isObject(value)) return `${at}.marketplaces is ${describe(value)}, not an object of marketplace sections`;
        for (const [section, values] of Object.entries(value)) {
          const here = `${at}.marketplaces[${shownProfileName(section)}]`;
          const badName = sectionNameProblem(section);
          if (badName !== undefined) return `${here} ${badName}`;
          if (!isObject(values)) return `${here} is ${describe(values)}, not an object of settings`;
          for (const [setting, scalar] of Object.entries(values)) {
            const where = `${here}${member(setting)}`;
            const notOwn = unknownKey(setting, true);
            if (notOwn !== undefined) return `${where} ${notOwn}`;
            if (!isScalar(scalar)) return `${where} is ${describe(scalar)}, not a string, number or boolean`;
            const kept = keptAsWritten(setting, scalar);
            if (kept !== undefined) return `${where} ${kept}`;
          }
        }
      } else if (!isScalar(value)) {
        return `${at}${member(key)} is ${describe(value)}, not a string, number or boolean`;
      } else {
        const kept = keptAsWritten(key, value);
        if (kept !== undefined) return `${at}${member(key)} ${kept}`;
      }
    }
  }
  return undefined;
}
