import { OPTION_BY_KEY, type OptionSpec } from '../config/options.js';
import type { NameSetting } from '../errors.js';
import { FLAGS, type FlagSpec } from '../options/index.js';
import { flagOf, flagsOfKeys, flagsText } from './flags.js';

/**
 * The flag of each setting the core's errors name, by the option name a library caller passes: from the flag table
 * (`key`), and the one negation a hint names.
 */
export const FLAG_OF_SETTING: Readonly<Record<string, string>> = { ...flagsOfKeys(), noJournal: '--no-journal' };

/** The command line that does what a library function does, for hints that point at one. */
const COMMAND_OF_FUNCTION: Readonly<Record<string, string>> = {
  streamListings: 'listings stream kafka://…/TOPIC --group NAME',
  startSandbox: 'listings sandbox --port N',
};

/** How the CLI names what the core names by option or function name: as its flag, or its command. */
export const cliName: NameSetting = (key) => FLAG_OF_SETTING[key] ?? COMMAND_OF_FUNCTION[key] ?? tableFlag(key) ?? key;

function flagOfSetting(option: OptionSpec): FlagSpec | undefined {
  return FLAGS.find((flag) => flag.setting === option.key);
}

/** The flag of a setting of the options table: `--base-url`; none for a setting not given per run. */
export function settingFlagName(option: OptionSpec): string | undefined {
  const spec = flagOfSetting(option);
  return spec === undefined ? undefined : flagOf(spec.name);
}

/** The flag of a setting of the options table by its key (`base_url` -> `--base-url`), when it has one. */
function tableFlag(key: string): string | undefined {
  const option = OPTION_BY_KEY.get(key);
  return option === undefined ? undefined : settingFlagName(option);
}

/** The flag as commander declares it, with its value: `--base-url <url>`, `--saved-defaults`. */
export function settingFlag(option: OptionSpec): string | undefined {
  const spec = flagOfSetting(option);
  return spec === undefined ? undefined : flagsText(spec);
}
