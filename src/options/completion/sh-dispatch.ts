import { allSpecs, shQuote, type CompletionCommand, type Values } from './tree.js';

/** How bash or zsh writes the parts of `_listings` that the two scripts share. */
export interface ShDialect {
  /** The array of the command line's words, the index of the first word after `listings`, the cursor's index. */
  words: string;
  first: number;
  cursor: string;
  /** A case pattern as the shell writes it: `pat)` or `(pat)`. */
  label(pattern: string): string;
  /** The commands that offer, at the cursor: file names, the profiles, fixed words, nothing (free text). */
  offer: { files: string; profiles: string; words(words: readonly string[]): string; none: string };
  /** The command that offers the subcommands of `spec`. */
  subcommands(spec: CompletionCommand): string;
  /** The command that offers the options of `spec`. */
  flags(spec: CompletionCommand): string;
  /** Lines run after the options of the command were chosen, before returning. */
  afterFlags: string[];
}

/** The body of `_listings` from the command path on: which command, then its option's value, options or arguments. */
export function dispatchLines(root: CompletionCommand, dialect: ShDialect): string[] {
  const specs = allSpecs(root);
  const paths = specs.filter((s) => s !== root).map((s) => s.path);
  const valueCases: string[] = [];
  for (const spec of specs) {
    const byAction = new Map<string, string[]>();
    for (const flag of spec.flags) {
      if (flag.value === undefined) continue;
      const action = offer(dialect, flag.value);
      byAction.set(action, [...(byAction.get(action) ?? []), ...flag.names.map((name) => `"${spec.path} ${name}"`)]);
    }
    for (const [action, patterns] of byAction) valueCases.push(`    ${dialect.label(patterns.join('|'))} ${action}; return ;;`);
  }
  const flagCases = specs.map((spec) => `      ${dialect.label(spec.path)} ${dialect.flags(spec)} ;;`);
  const argCases: string[] = [];
  for (const spec of specs) {
    const actions: string[] = [];
    if (spec.subcommands.length > 0) actions.push(dialect.subcommands(spec));
    if (spec.args.kind !== 'none') {
      const action = offer(dialect, spec.args);
      actions.push(spec.firstArgOnly ? `if [[ "$prev" == ${shQuote(spec.name)} ]]; then ${action}; fi` : action);
    }
    if (actions.length > 0) argCases.push(`    ${dialect.label(spec.path)} ${actions.join('; ')} ;;`);
  }
  return [
    '  # The command path: listings, listings/config, listings/config/set...',
    `  for (( i = ${dialect.first}; i < ${dialect.cursor}; i++ )); do`,
    `    word="\${${dialect.words}[i]}"`,
    '    case "$cmd/$word" in',
    `      ${dialect.label(paths.join('|'))} cmd="$cmd/$word" ;;`,
    '    esac',
    '  done',
    '  # The value of the option before the cursor.',
    '  case "$cmd $prev" in',
    ...valueCases,
    '  esac',
    '  if [[ "$cur" == -* ]]; then',
    '    case "$cmd" in',
    ...flagCases,
    '    esac',
    ...dialect.afterFlags,
    '    return',
    '  fi',
    '  case "$cmd" in',
    ...argCases,
    '  esac',
    '}',
  ];
}

/** The command of `dialect` that offers `values`. */
function offer(dialect: ShDialect, values: Values): string {
  return values.kind === 'words' ? dialect.offer.words(values.words) : dialect.offer[values.kind];
}
