import type { Command, Option } from 'commander';

/**
 * The flags a command was given, as typed (`--map sku=SKU_ID`, `--sandbox`), for the next step to repeat: read from
 * argv with the command's own options, so a value keeps its spelling (a unit, a path as written). The operands (the
 * sources) and the options in `skip` (by attribute name: `retryFailed`, `report`) are left out.
 */
export function repeatedFlags(command: Command, skip: ReadonlySet<string>, argv: readonly string[] = process.argv.slice(2)): string[] {
  const start = argv.indexOf(command.name());
  const words = argv.slice(start + 1);
  const byName = (token: string): Option | undefined => command.options.find((option) => option.long === token || option.short === token);
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word === '--') break;
    if (!word.startsWith('-') || word === '-') continue;
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const option = byName(eq === -1 ? word : word.slice(0, eq));
    if (option === undefined) continue;
    const takesValue = (option.required || option.optional) && eq === -1 && !option.negate;
    const value = takesValue && (option.required || !(words[i + 1] ?? '-').startsWith('-')) ? words[++i] : undefined;
    if (skip.has(option.attributeName())) continue;
    kept.push(word, ...(value === undefined ? [] : [value]));
  }
  return kept;
}

/** Flags a next step does not repeat: what it replaces (`--resume`, `--retry-failed`), the outputs and the display. */
export const NOT_REPEATED: ReadonlySet<string> = new Set(['resume', 'retryFailed', 'report', 'json', 'quiet', 'logFormat', 'verbose', 'debug', 'showErrors', 'requestsOut']);
