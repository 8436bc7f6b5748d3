import { allSpecs, header, PROFILE_RE, PROFILES_SH, shQuote, type CompletionCommand } from './tree.js';

/** The bash completion script of the program's commands. */
export function bashScript(root: CompletionCommand): string {
  const specs = allSpecs(root);
  const paths = specs.filter((s) => s !== root).map((s) => s.path);
  const valueCases: string[] = [];
  for (const spec of specs) {
    const byKind = new Map<string, string[]>();
    for (const flag of spec.flags) {
      if (flag.value === undefined) continue;
      const action =
        flag.value.kind === 'files'
          ? '_listings_files "$cur"'
          : flag.value.kind === 'profiles'
            ? '_listings_profiles "$cur"'
            : flag.value.kind === 'words'
              ? `_listings_words "$cur" ${shQuote(flag.value.words.join(' '))}`
              : ':';
      const list = byKind.get(action) ?? [];
      list.push(...flag.names.map((name) => `"${spec.path} ${name}"`));
      byKind.set(action, list);
    }
    for (const [action, patterns] of byKind) valueCases.push(`    ${patterns.join('|')}) ${action}; return ;;`);
  }
  const flagCases = specs.map((spec) => `      ${spec.path}) _listings_words "$cur" ${shQuote(spec.flags.flatMap((f) => f.names).join(' '))} ;;`);
  const argCases: string[] = [];
  for (const spec of specs) {
    const actions: string[] = [];
    if (spec.subcommands.length > 0) actions.push(`_listings_words "$cur" ${shQuote(spec.subcommands.map((s) => s.name).join(' '))}`);
    const args = spec.args;
    if (args.kind !== 'none') {
      const action = args.kind === 'files' ? '_listings_files "$cur"' : args.kind === 'profiles' ? '_listings_profiles "$cur"' : `_listings_words "$cur" ${shQuote(args.words.join(' '))}`;
      actions.push(spec.firstArgOnly ? `if [[ "$prev" == ${shQuote(spec.name)} ]]; then ${action}; fi` : action);
    }
    if (actions.length > 0) argCases.push(`    ${spec.path}) ${actions.join('; ')} ;;`);
  }
  return [
    ...header('bash', 'In this session: source <(listings completion bash)\nIn every session: listings completion bash > ~/.local/share/bash-completion/completions/listings'),
    '',
    '# COMPREPLY from the lines of stdin.',
    '_listings_reply() {',
    '  local line',
    '  while IFS= read -r line; do COMPREPLY+=("$line"); done',
    '}',
    '# The fixed words of the program (never text from outside: compgen -W expands its list).',
    '_listings_words() {',
    '  _listings_reply < <(compgen -W "$2" -- "$1")',
    '}',
    '# The profiles of the config that start with $1, compared as text.',
    '_listings_profiles() {',
    `  local name re=${shQuote(PROFILE_RE)}`,
    '  while IFS= read -r name; do',
    '    if [[ "$name" =~ $re && "$name" == "$1"* ]]; then COMPREPLY+=("$name"); fi',
    `  done < <(${PROFILES_SH})`,
    '}',
    '_listings_files() {',
    '  compopt -o filenames 2>/dev/null',
    '  _listings_reply < <(compgen -f -- "$1")',
    '}',
    '_listings() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="listings" word i',
    '  COMPREPLY=()',
    '  if (( COMP_CWORD > 0 )); then prev="${COMP_WORDS[COMP_CWORD-1]}"; fi',
    '  # The command path: listings, listings/config, listings/config/set...',
    '  for (( i = 1; i < COMP_CWORD; i++ )); do',
    '    word="${COMP_WORDS[i]}"',
    '    case "$cmd/$word" in',
    `      ${paths.join('|')}) cmd="$cmd/$word" ;;`,
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
    '    return',
    '  fi',
    '  case "$cmd" in',
    ...argCases,
    '  esac',
    '}',
    'complete -F _listings listings',
    '',
  ].join('\n');
}
