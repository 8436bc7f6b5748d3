import type { Command, Option } from 'commander';

/** An option of a command as argv gives it: the word (`--map`, `--json`), the option it names, its value if it takes one. */
interface GivenFlag {
  word: string;
  option: Option;
  value: string | undefined;
}

/**
 * The options argv gives a command, read with the command's own options as commander reads them: a value is the word
 * after a flag that takes one (`--title --json` gives the title `--json`), nothing after `--` is an option, and a
 * word no option of the command knows is passed over. Read from the raw words, so it holds even when commander
 * refused the command line before it assigned a single option (an unknown option, a missing argument).
 */
function* givenFlags(command: Command, argv: readonly string[]): Generator<GivenFlag> {
  const start = argv.indexOf(command.name());
  const words = argv.slice(start + 1);
  const byName = (token: string): Option | undefined => command.options.find((option) => option.long === token || option.short === token);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word === '--') break;
    if (!word.startsWith('-') || word === '-') continue;
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const option = byName(eq === -1 ? word : word.slice(0, eq));
    if (option === undefined) continue;
    const takesValue = (option.required || option.optional) && eq === -1 && !option.negate;
    const value = takesValue && (option.required || !(words[i + 1] ?? '-').startsWith('-')) ? words[++i] : undefined;
    yield { word, option, value };
  }
}

/**
 * The flags a command was given, as typed (`--map sku=SKU_ID`, `--sandbox`), for the next step to repeat: read from
 * argv with the command's own options, so a value keeps its spelling (a unit, a path as written). The operands (the
 * sources) and the options in `skip` (by attribute name: `retryFailed`, `report`) are left out.
 */
export function repeatedFlags(command: Command, skip: ReadonlySet<string>, argv: readonly string[] = process.argv.slice(2)): string[] {
  const kept: string[] = [];
  for (const { word, option, value } of givenFlags(command, argv)) {
    if (skip.has(option.attributeName())) continue;
    kept.push(word, ...(value === undefined ? [] : [value]));
  }
  return kept;
}

/**
 * Whether argv gives `command` the switch `flag` (`--json`), as the word itself: commander takes a switch in no other
 * form (`--json=yes` is an unknown option to it), and not as another option's value or after `--`.
 */
export function givesSwitch(command: Command, flag: string, argv: readonly string[]): boolean {
  for (const { word } of givenFlags(command, argv)) if (word === flag) return true;
  return false;
}

/** Flags a next step does not repeat: what it replaces (`--resume`, `--retry-failed`), the outputs and the display. */
export const NOT_REPEATED: ReadonlySet<string> = new Set(['resume', 'retryFailed', 'report', 'json', 'quiet', 'logFormat', 'verbose', 'debug', 'showErrors', 'requestsOut']);
