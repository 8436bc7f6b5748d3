import { Option } from 'commander';
import type { SettingKey } from '../config/options.js';
import { FLAGS } from '../options/index.js';
import { flagsText } from './flags.js';
import type { LoadedSettings, SettingsRequest } from '../setup/settings.js';

export type { LoadedSettings };

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

/** What a command's flags ask of the settings: the values given, the profile named, plain http allowed. */
export function settingsRequest(opts: Record<string, unknown>): SettingsRequest {
  return { given: flagValues(opts), profile: typeof opts.profile === 'string' ? opts.profile : undefined, allowInsecureHttp: opts.allowInsecureHttp === true };
}

/** The settings in effect for a command, from its flags (src/setup/settings.ts does the work). */
export async function loadSettings(opts: Record<string, unknown>, env: Record<string, string | undefined> = process.env): Promise<LoadedSettings> {
  const { loadSettings: load } = await import('../setup/settings.js');
  return load(settingsRequest(opts), env);
}
