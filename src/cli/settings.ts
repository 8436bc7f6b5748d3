import { Option, type Command } from 'commander';
import { commandPath, GROUP } from './help.js';
import { OPTIONS, attributeName, type SettingKey } from '../config/options.js';
import { settingFlag } from './setting-flags.js';
import type { LoadedSettings, SettingsRequest } from '../setup/settings.js';

export type { LoadedSettings };

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

/** What a command's flags ask of the settings: the values given, the profile named, plain http allowed. */
export function settingsRequest(opts: Record<string, unknown>): SettingsRequest {
  return { given: flagValues(opts), profile: typeof opts.profile === 'string' ? opts.profile : undefined, allowInsecureHttp: opts.allowInsecureHttp === true };
}

/** The settings in effect for a command, from its flags (src/setup/settings.ts does the work). */
export async function loadSettings(opts: Record<string, unknown>, env: Record<string, string | undefined> = process.env): Promise<LoadedSettings> {
  const { loadSettings: load } = await import('../setup/settings.js');
  return load(settingsRequest(opts), env);
}
