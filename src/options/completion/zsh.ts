import { allSpecs, header, PROFILES_SH, shQuote, type CompletionCommand, type Values } from './tree.js';

/** The zsh completion script of the program's commands. */
export function zshScript(root: CompletionCommand): string {
  const specs = allSpecs(root);
  const paths = specs.filter((s) => s !== root).map((s) => s.path);
  const zshAction = (values: Values): string => {
    switch (values.kind) {
      case 'files':
        return '_files';
      case 'profiles':
        return '_listings_profiles';
      case 'words':
        return `compadd -- ${values.words.map(shQuote).join(' ')}`;
      default:
        return "_message 'a value'";
    }
  };
  const valueCases: string[] = [];
  for (const spec of specs) {
    const byAction = new Map<string, string[]>();
    for (const flag of spec.flags) {
      if (flag.value === undefined) continue;
      const action = zshAction(flag.value);
      byAction.set(action, [...(byAction.get(action) ?? []), ...flag.names.map((name) => `"${spec.path} ${name}"`)]);
    }
    for (const [action, patterns] of byAction) valueCases.push(`    (${patterns.join('|')}) ${action}; return ;;`);
  }
  const describe = (entries: { name: string; description: string }[]): string => entries.map((e) => shQuote(`${e.name.replace(/:/g, '\\:')}:${e.description}`)).join(' ');
  const flagCases = specs.map((spec) => `      (${spec.path}) items=(${describe(spec.flags.flatMap((f) => f.names.map((name) => ({ name, description: f.description }))))}) ;;`);
  const argCases: string[] = [];
  for (const spec of specs) {
    const actions: string[] = [];
    if (spec.subcommands.length > 0) actions.push(`items=(${describe(spec.subcommands)}); _describe -t commands command items`);
    if (spec.args.kind !== 'none') {
      const action = zshAction(spec.args);
      actions.push(spec.firstArgOnly ? `if [[ "$prev" == ${shQuote(spec.name)} ]]; then ${action}; fi` : action);
    }
    if (actions.length > 0) argCases.push(`    (${spec.path}) ${actions.join('; ')} ;;`);
  }
  return [
    '#compdef listings',
    ...header('zsh', 'Install: listings completion zsh > "${fpath[1]}/_listings", then start a new shell\nIn this session (after compinit): source <(listings completion zsh)'),
    '',
    '# The profiles of the config, offered as words (compadd quotes what it inserts).',
    '_listings_profiles() {',
    '  local name',
    '  local -a names',
    `  for name in \${(f)"$(${PROFILES_SH})"}; do`,
    "    if [[ $name == [A-Za-z0-9]* && $name != *[^A-Za-z0-9_.-]* ]]; then names+=(\"$name\"); fi",
    '  done',
    '  compadd -- $names',
    '}',
    '',
    '_listings() {',
    '  local cmd=listings word prev="${words[CURRENT-1]}" cur="${words[CURRENT]}"',
    '  local -i i',
    '  local -a items',
    '  # The command path: listings, listings/config, listings/config/set...',
    '  for (( i = 2; i < CURRENT; i++ )); do',
    '    word="${words[i]}"',
    '    case "$cmd/$word" in',
    `      (${paths.join('|')}) cmd="$cmd/$word" ;;`,
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
    '    _describe -t options option items',
    '    return',
    '  fi',
    '  case "$cmd" in',
    ...argCases,
    '  esac',
    '}',
    '',
    'if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then',
    '  _listings "$@"',
    'else',
    '  compdef _listings listings',
    'fi',
    '',
  ].join('\n');
}
