import type { CatalogSetting } from '../catalog/types.js';
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
  // The settings of a run that the report, publish and stream modules name.
  report: '--report',
  retryFailed: '--retry-failed',
  changedOnly: '--changed-only',
  shard: '--shard',
} satisfies Record<CatalogSetting | 'report' | 'retryFailed' | 'changedOnly' | 'shard', string>;

/** The command line that does what a library function does, for hints that point at one. */
const COMMAND_OF_FUNCTION: Readonly<Record<string, string>> = {
  streamListings: 'listings stream kafka://…/TOPIC --group NAME',
};

/** How the CLI names what the core names by option or function name: as its flag, or its command. */
export const cliName: NameSetting = (key) => FLAG_OF_SETTING[key] ?? COMMAND_OF_FUNCTION[key] ?? key;
