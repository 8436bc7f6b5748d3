import { dispatchLines, type ShDialect } from './sh-dispatch.js';
import { header, PROFILES_SH, shQuote, type CompletionCommand } from './tree.js';

/** The zsh completion script of the program's commands. */
export function zshScript(root: CompletionCommand): string {
  const describe = (entries: { name: string; description: string }[]): string => entries.map((e) => shQuote(`${e.name.replace(/:/g, '\\:')}:${e.description}`)).join(' ');
  const dialect: ShDialect = {
    words: 'words',
    first: 2,
    cursor: 'CURRENT',
    label: (pattern) => `(${pattern})`,
    offer: { files: '_files', profiles: '_listings_profiles', words: (words) => `compadd -- ${words.map(shQuote).join(' ')}`, none: "_message 'a value'" },
    subcommands: (spec) => `items=(${describe(spec.subcommands)}); _describe -t commands command items`,
    flags: (spec) => `items=(${describe(spec.flags.flatMap((f) => f.names.map((name) => ({ name, description: f.description }))))})`,
    afterFlags: ['    _describe -t options option items'],
  };
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
    ...dispatchLines(root, dialect),
    '',
    'if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then',
    '  _listings "$@"',
    'else',
    '  compdef _listings listings',
    'fi',
    '',
  ].join('\n');
}
