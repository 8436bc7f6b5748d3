import { OPTIONS, PER_MARKETPLACE_KEYS, type OptionSpec, type SettingKey } from '../config/options.js';
import { SHAPES } from '../contract/shapes.js';
import type { CommandPath, FlagSpec, GroupId } from './spec.js';

/** The settings by what they are about; a command takes the options of the kinds it reads. */
const KINDS = {
  service: ['base_url', 'api_key_env'],
  listing: ['marketplace', 'merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id', 'condition', 'image_base_url', 'shape', 'saved_defaults'],
  flow: ['concurrency', 'max_concurrency'],
} as const satisfies Record<string, readonly SettingKey[]>;

/** Which settings each kind of command reads: it shows (and accepts) the options of these only. */
const READ_BY: Readonly<Record<keyof typeof KINDS, readonly CommandPath[]>> = {
  service: ['publish', 'stream', 'create', 'doctor', 'init', 'config list'],
  listing: ['publish', 'stream', 'validate', 'enqueue', 'create', 'init', 'config list'],
  flow: ['publish', 'stream', 'config list'],
};

/** The commands that send requests to base_url: they take allow-insecure-http. */
const SENDERS: readonly CommandPath[] = ['publish', 'stream', 'create', 'doctor', 'init'];

function kindOf(key: SettingKey): keyof typeof KINDS | undefined {
  return (Object.keys(KINDS) as (keyof typeof KINDS)[]).find((kind) => (KINDS[kind] as readonly string[]).includes(key));
}

/**
 * What a setting's option means to `create`, where it differs from the settings table's words: create sends one
 * listing, so the several marketplaces a catalog may be published to are refused there.
 */
const ONE_LISTING: Partial<Record<SettingKey, string>> = {
  marketplace: 'target marketplace: EBAY_US (flat) or ebay (wrapped); one, since create sends one listing',
};

/** The option as the table describes it, and for `create` apart when it means something else there. */
function withOneListing(flag: FlagSpec, key: SettingKey): FlagSpec[] {
  const description = ONE_LISTING[key];
  if (description === undefined || !flag.commands.includes('create')) return [flag];
  return [{ ...flag, commands: flag.commands.filter((command) => command !== 'create') }, { ...flag, commands: ['create'], description }];
}

/** The option of a setting given per run, named after its key (`base_url` -> `base-url`), from the settings table. */
function settingFlag(option: OptionSpec): FlagSpec[] {
  const kind = kindOf(option.key);
  if (option.perRun === undefined || kind === undefined) return [];
  const group: GroupId = kind === 'listing' ? 'listing' : 'sending';
  const flag: FlagSpec = {
    name: option.key.replaceAll('_', '-'),
    commands: READ_BY[kind],
    group,
    setting: option.key,
    env: option.env,
    description: option.description,
    ...(option.perRun === true ? { negation: `set ${option.key} to false (overrides env and profile)` } : { value: { kind: 'text', placeholder: option.perRun } }),
    ...(option.default === undefined || option.default === false ? {} : { default: option.default, defaultBelow: true }),
    ...(option.key === 'shape' ? { complete: { words: SHAPES } } : {}),
  };
  return withOneListing(flag, option.key);
}

/** The options of the settings (src/config/options.ts, the source of their names, meaning, env and default), and of the profile. */
export const SETTING_FLAGS: readonly FlagSpec[] = [
  ...OPTIONS.flatMap(settingFlag),
  {
    name: 'allow-insecure-http',
    commands: SENDERS,
    group: 'sending',
    key: 'allowInsecureHttp',
    description: 'allow plain http to a host that is not loopback (the key crosses the network in clear)',
  },
  {
    name: 'profile',
    commands: ['publish', 'stream', 'validate', 'enqueue', 'create', 'doctor', 'config list'],
    group: 'profile',
    key: 'profile',
    value: { kind: 'text', placeholder: 'name' },
    env: 'LISTINGS_PROFILE',
    complete: 'profiles',
    description: 'config profile to use',
  },
  { name: 'profile', commands: ['init'], group: 'profile', value: { kind: 'text', placeholder: 'name' }, complete: 'profiles', description: 'profile to write (default: the active one; a new name makes a new profile)' },
];

/** The options of `config set`, `get` and `unset`: which profile, and which marketplace's section. */
export const CONFIG_FLAGS: readonly FlagSpec[] = [
  { name: 'profile', commands: ['config set'], group: 'profile', value: { kind: 'text', placeholder: 'name' }, complete: 'profiles', description: 'profile to write (default: the active one)' },
  { name: 'profile', commands: ['config get'], group: 'profile', value: { kind: 'text', placeholder: 'name' }, complete: 'profiles', description: 'profile to read (default: the active one)' },
  { name: 'profile', commands: ['config unset'], group: 'profile', value: { kind: 'text', placeholder: 'name' }, complete: 'profiles', description: 'profile to change (default: the active one)' },
  {
    name: 'marketplace',
    commands: ['config set'],
    group: 'other',
    value: { kind: 'text', placeholder: 'id' },
    description: `store it in the profile's section for this marketplace: its own default (${PER_MARKETPLACE_KEYS.join(', ')})`,
  },
  { name: 'marketplace', commands: ['config get'], group: 'other', value: { kind: 'text', placeholder: 'id' }, description: 'the value in effect for this marketplace (its own, else the general one)' },
  { name: 'marketplace', commands: ['config unset'], group: 'other', value: { kind: 'text', placeholder: 'id' }, description: "remove it from the profile's section for this marketplace" },
  {
    name: 'allow-insecure-http',
    commands: ['config set'],
    group: 'other',
    description: 'store a plain http base_url to a host that is not loopback (each run then needs {{allow-insecure-http}} too)',
  },
  {
    name: 'json',
    commands: ['config list'],
    group: 'output',
    description: 'print {settings: {key: {value, source}}, marketplaces: {id: {key: {value, source, own}}}} as JSON',
  },
];
