import type { CatalogSetting } from '../catalog/types.js';
import { OPTION_BY_KEY, type OptionSpec } from '../config/options.js';
import type { NameSetting } from '../errors.js';

/** The flag of each setting the core's errors name, by the option name a library caller passes. */
export const FLAG_OF_SETTING: Readonly<Record<string, string>> = {
  format: '--format',
  delimiter: '--delimiter',
  jsonPath: '--json-path',
  map: '--map',
  mapping: '--mapping',
  preset: '--preset',
  sourceHeaders: '--source-header',
  // The settings of a run that the report, publish and stream modules name (the CI summary and annotations too).
  report: '--report',
  retryFailed: '--retry-failed',
  changedOnly: '--changed-only',
  shard: '--shard',
  maxErrors: '--max-errors',
  dryRun: '--dry-run',
  // The settings of the client that the diagnosis (doctor, init) names.
  allowInsecureHttp: '--allow-insecure-http',
  // The sandbox's data file (startSandbox's dataFile), named by its hint.
  dataFile: '--data',
  // What the setup (settings in effect, doctor, init) names besides the settings of the options table.
  profile: '--profile',
  sandbox: '--sandbox',
  journal: '--journal',
  state: '--state',
  noJournal: '--no-journal',
  // streamListings' dead-letter target, named by the Kafka address check.
  deadLetter: '--dead-letter',
} satisfies Record<CatalogSetting | 'report' | 'retryFailed' | 'changedOnly' | 'shard' | 'maxErrors' | 'dryRun' | 'allowInsecureHttp' | 'dataFile' | 'profile' | 'sandbox' | 'journal' | 'state' | 'noJournal' | 'deadLetter', string>;

/** The command line that does what a library function does, for hints that point at one. */
const COMMAND_OF_FUNCTION: Readonly<Record<string, string>> = {
  streamListings: 'listings stream kafka://…/TOPIC --group NAME',
  startSandbox: 'listings sandbox --port N',
};

/** How the CLI names what the core names by option or function name: as its flag, or its command. */
export const cliName: NameSetting = (key) => FLAG_OF_SETTING[key] ?? COMMAND_OF_FUNCTION[key] ?? tableFlag(key) ?? key;

/** The flag of a setting of the options table: `--base-url`; none for a setting not given per run. */
export function settingFlagName(option: OptionSpec): string | undefined {
  return option.perRun === undefined ? undefined : `--${option.key.replaceAll('_', '-')}`;
}

/** The flag of a setting of the options table by its key (`base_url` -> `--base-url`), when it has one. */
function tableFlag(key: string): string | undefined {
  const option = OPTION_BY_KEY.get(key);
  return option === undefined ? undefined : settingFlagName(option);
}

/** The flag as commander declares it, with its value: `--base-url <url>`, `--saved-defaults`. */
export function settingFlag(option: OptionSpec): string | undefined {
  const name = settingFlagName(option);
  return name === undefined || option.perRun === true ? name : `${name} <${option.perRun}>`;
}
