import type { EventEmitter } from 'node:events';
import { Option, type Command } from 'commander';
import { FORMATS } from '../catalog/types.js';
import { PRESET_NAMES, PRESETS } from '../catalog/presets/index.js';
import { UsageError } from '../errors.js';
import { FLAGS, flagsOf, GROUPS, parseValue, placeholderOf, type FlagSpec, type NamedList } from '../options/index.js';
import type { Values } from '../options/completion/index.js';

/** The word lists the table names but cannot hold (their rooms stand above it). */
const LISTS: Readonly<Record<NamedList, readonly string[]>> = { formats: FORMATS, presets: PRESETS, 'export-presets': PRESET_NAMES };

const UNIT_WORDS = { ms: 'ms', s: 'seconds', m: 'minutes', h: 'hours' } as const;

/** An option's name as the command line writes it: `--timeout`. */
export function flagOf(name: string): string {
  return `--${name}`;
}

/** A description of the table with the options it names (`{{state}}`) worded as flags (`--state`). */
export function worded(text: string): string {
  return text.replace(/\{\{([a-z0-9-]+)\}\}/g, (_, name: string) => flagOf(name));
}

/** The heading of an option's help group; commander's own `Options:` for the unnamed one. */
export function headingOf(spec: FlagSpec): string {
  return `${GROUPS[spec.group] || 'Options'}:`;
}

/** The choices of an option, with the table's named lists filled in. */
export function choicesOf(spec: FlagSpec): readonly string[] | undefined {
  if (spec.value?.kind !== 'choice') return undefined;
  const { choices } = spec.value;
  return typeof choices === 'string' ? LISTS[choices] : choices;
}

/** What the value of an option completes to in a shell: the table's completion, else its choices; undefined for a switch. */
export function completionOf(spec: FlagSpec): Values | undefined {
  if (spec.value === undefined) return undefined;
  const { complete } = spec;
  if (complete === 'files' || complete === 'profiles') return { kind: complete };
  const words = complete?.words ?? choicesOf(spec);
  return words === undefined ? { kind: 'none' } : { kind: 'words', words };
}

/** The flags text commander reads: `-y, --yes`, `--timeout <duration>`. */
export function flagsText(spec: FlagSpec, name = spec.name): string {
  const value = spec.value === undefined ? '' : ` <${placeholderOf(spec.value)}>`;
  return `${spec.short === undefined ? '' : `-${spec.short}, `}${flagOf(name)}${value}`;
}

/** The help line of an option: its meaning, how to repeat it, its environment variable, a default applied below. */
export function helpText(spec: FlagSpec): string {
  const parts = [worded(spec.description)];
  if (spec.value?.kind === 'duration') parts.push(`(a bare number is ${UNIT_WORDS[spec.value.bare]})`);
  if (spec.repeatable === true) parts.push('(repeatable)');
  if (spec.env !== undefined) parts.push(`(env ${spec.env}${spec.value === undefined && spec.setting === undefined ? '=1' : ''})`);
  if (spec.default !== undefined && spec.defaultBelow === true) parts.push(`(default: ${String(spec.default)})`);
  return parts.join(' ');
}

/** The value of an option read from argv; a bad one is a usage error naming the flag (exit 2). */
function parserOf(spec: FlagSpec): ((raw: string) => unknown) | undefined {
  const { value } = spec;
  if (value === undefined || value.kind === 'text' || value.kind === 'choice') return undefined;
  return (raw) => {
    try {
      return parseValue(value, raw);
    } catch (error) {
      throw new UsageError(`${flagOf(spec.name)}: ${worded((error as Error).message)}`);
    }
  };
}

function optionOf(spec: FlagSpec, name = spec.name): Option {
  const option = new Option(flagsText(spec, name), helpText(spec)).helpGroup(headingOf(spec));
  const parse = parserOf(spec);
  const choices = choicesOf(spec);
  if (choices !== undefined) option.choices(choices);
  if (spec.repeatable === true) {
    option.argParser((raw: string, previous: unknown[]) => [...previous, parse === undefined ? raw : parse(raw)]).default([]);
  } else if (parse !== undefined) {
    option.argParser(parse);
  }
  if (spec.default !== undefined && spec.defaultBelow !== true) {
    // The default as a person writes it (`30s`), read as the flag's value would be (30000).
    const raw = String(spec.default);
    option.default(parse === undefined ? spec.default : parse(raw), raw);
  }
  if (spec.required === true) option.makeOptionMandatory();
  return option;
}

/**
 * A flag of one value given twice with two values is refused: commander keeps the last without a word, and the
 * first (`--marketplace EBAY_US --marketplace EBAY_GB`) would be dropped. The same value twice is no conflict.
 */
function refuseTwice(command: Command, option: Option, spec: FlagSpec): void {
  const parse = option.parseArg;
  option.argParser((raw: string, previous: unknown) => {
    const value: unknown = parse === undefined ? raw : parse.call(option, raw, previous);
    if (command.getOptionValueSource(option.attributeName()) === 'cli' && JSON.stringify(value) !== JSON.stringify(previous)) {
      throw new UsageError(`${flagOf(spec.name)} is given twice, with different values: give it once`);
    }
    return value;
  });
}

/**
 * An option given both ways (`--journal x --no-journal`, `--no-saved-defaults --saved-defaults`) is refused:
 * commander keeps the last without a word, and which one was meant cannot be told.
 */
function refuseBothWays(command: Command, spec: FlagSpec): void {
  let given: string | undefined;
  for (const name of [spec.name, `no-${spec.name}`]) {
    // A Command is an EventEmitter (its types leave that out). Ahead of commander's own listener, whose value check (refuseTwice) would otherwise speak first, and wrongly.
    (command as unknown as EventEmitter).prependListener(`option:${name}`, () => {
      if (given !== undefined && given !== name) {
        throw new UsageError(`${flagOf(given)} and ${flagOf(name)} are both given, and they contradict each other: give one of them`);
      }
      given = name;
    });
  }
}

/**
 * Declares the options the table gives `command` (by its path: `publish`, `config set`), each in its help group,
 * with the `no-` form of those that have one and the old names that still work (hidden).
 */
export function declareFlags(command: Command, path: string): Command {
  for (const spec of flagsOf(path)) {
    const option = optionOf(spec);
    if (spec.value !== undefined && spec.repeatable !== true) refuseTwice(command, option, spec);
    command.addOption(option);
    if (spec.negation !== undefined) {
      command.addOption(new Option(flagOf(`no-${spec.name}`), worded(spec.negation)).helpGroup(headingOf(spec)));
      refuseBothWays(command, spec);
    }
    for (const alias of spec.aliases ?? []) {
      const old = optionOf(spec, alias).hideHelp();
      // The old name sets what the new one does: the action reads one value.
      old.argParser((raw: string) => {
        const value = parserOf(spec)?.(raw) ?? raw;
        command.setOptionValueWithSource(option.attributeName(), value, 'cli');
        return value;
      });
      command.addOption(old);
    }
  }
  return command;
}

/** The flag each setting of the core is worded as, by the name a library caller passes (`jsonPath` -> `--json-path`). */
export function flagsOfKeys(): Record<string, string> {
  return Object.fromEntries(FLAGS.flatMap((spec): [string, string][] => (spec.key === undefined ? [] : [[spec.key, flagOf(spec.name)]])));
}

/** Where commander keeps an option's value: `fail-rate` -> `failRate`. */
function attributeOf(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** A decimal number, or NaN: `Number('')` would be 0 and `Number('0x10')` 16. */
function decimal(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  return /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(raw) ? Number(raw) : Number.NaN;
}

/** The library options a command's flags give: each option of the table with a `key` that was given, under that key. */
export function optionsOfFlags(path: string, flags: object): Record<string, unknown> {
  const given = flags as Record<string, unknown>;
  const options: Record<string, unknown> = {};
  for (const spec of flagsOf(path)) {
    const raw = spec.key === undefined ? undefined : given[attributeOf(spec.name)];
    if (spec.key === undefined || raw === undefined || raw === false) continue;
    options[spec.key] = spec.value?.kind === 'text' && spec.value.number === true ? decimal(raw) : raw;
  }
  return options;
}

/** The option of a command whose `key` is the one the library names (`maxBodyBytes`): its flag, and the value given. */
export function flagOfKey(path: string, key: string, flags: object): { flag: string; raw: unknown } | undefined {
  const spec = flagsOf(path).find((candidate) => candidate.key === key);
  return spec === undefined ? undefined : { flag: flagOf(spec.name), raw: (flags as Record<string, unknown>)[attributeOf(spec.name)] };
}
