import type { SettingKey } from '../config/options.js';
import type { DurationUnit } from './duration.js';

/**
 * The commands that take options, by path (`config list` for a subcommand). A command not named here takes none of
 * its own (`completion`, `config path`...).
 */
export const COMMANDS = ['publish', 'stream', 'validate', 'enqueue', 'create', 'init', 'doctor', 'config set', 'config get', 'config unset', 'config list', 'sandbox', 'listen'] as const;
export type CommandPath = (typeof COMMANDS)[number];

/** The headings options are grouped under in help, in the order help shows them ('' is the last, unnamed group). */
export const GROUPS = {
  source: 'Source options',
  mapping: 'Mapping options',
  listing: 'Listing options',
  rows: 'Row selection options',
  sending: 'Sending options',
  kafka: 'Kafka options',
  server: 'Server options',
  faults: 'Fault injection options',
  receiving: 'Receiving options',
  signature: 'Signature options',
  forwarding: 'Forwarding options',
  output: 'Output options',
  profile: 'Profile options',
  other: '',
} as const;
export type GroupId = keyof typeof GROUPS;

/** Word lists kept by rooms above this one (the catalog's formats, its presets, and the presets of an export alone): named here, filled in by the CLI. */
export type NamedList = 'formats' | 'presets' | 'export-presets';

/** What an option's value is, and how it is read from its text. */
export type ValueSpec =
  /** Free text, checked where it is used (a file name, a URL); `number`: read as a decimal number there. */
  | { kind: 'text'; placeholder: string; number?: true }
  /** One of a few words. */
  | { kind: 'choice'; placeholder: string; choices: readonly string[] | NamedList }
  /**
   * A whole number in [min, max]; with `all`, the word `all` too (no limit: Infinity). `belowMin`: what to use
   * instead of a number below `min`, added to its error (it may name options as `{{name}}`).
   */
  | { kind: 'whole'; placeholder: string; min: number; max: number; all?: true; belowMin?: string }
  /** A number of requests per second, > 0. */
  | { kind: 'rate'; placeholder: string }
  /**
   * A duration (`500ms`, `30s`, `2m`, `1h`), kept as a whole number of `unit`; a number alone is read in `bare`
   * (the unit the option took before units were written). `range`: also `MIN-MAX`, each a duration.
   */
  | { kind: 'duration'; bare: DurationUnit; unit: DurationUnit; min: string; max: string; range?: true };

/** What a value completes to in a shell: file names, the profiles of the config, or fixed words. */
export type Completion = 'files' | 'profiles' | { words: readonly string[] };

/**
 * One option of one or more commands. Names are written without their leading dashes; a description names another
 * option as `{{name}}`, which the CLI words as its flag.
 */
export interface FlagSpec {
  /** The long name: `timeout`, `no-check`. */
  name: string;
  /** A one-letter short name: `y`. */
  short?: string;
  /** The commands that take it. Two entries may share a name when no command takes both. */
  commands: readonly CommandPath[];
  group: GroupId;
  description: string;
  /** Absent for a switch. */
  value?: ValueSpec;
  /** The value when the option is not given, as a person writes it (`30s`, `5`, `human`). */
  default?: string | number | boolean;
  /** The default is applied below (by the library) and only shown in help. */
  defaultBelow?: true;
  /** It may be given several times; the values are collected in order (default: none). */
  repeatable?: true;
  /** The description of the `no-` form that turns it off (`no-journal`). */
  negation?: string;
  /** Given it must be: commander refuses the command without it. */
  required?: true;
  /** Old names that still work, not shown in help or completion. */
  aliases?: readonly string[];
  /** An environment variable that gives it when the option is absent (read where the value is used). */
  env?: string;
  /** The setting of src/config/options.ts it sets (flag > env > profile > default). */
  setting?: SettingKey;
  /** The name the core gives it in a library call and in its errors (`jsonPath`): the CLI words those as this flag. */
  key?: string;
  /** What its value completes to; else the choices, or nothing. */
  complete?: Completion;
}
