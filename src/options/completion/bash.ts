import { dispatchLines, type ShDialect } from './sh-dispatch.js';
import { header, PROFILE_RE, PROFILES_SH, shQuote, type CompletionCommand } from './tree.js';

/** The bash completion script of the program's commands. */
export function bashScript(root: CompletionCommand): string {
  const dialect: ShDialect = {
    words: 'COMP_WORDS',
    first: 1,
    cursor: 'COMP_CWORD',
    label: (pattern) => `${pattern})`,
    offer: { files: '_listings_files "$cur"', profiles: '_listings_profiles "$cur"', words: (words) => `_listings_words "$cur" ${shQuote(words.join(' '))}`, none: ':' },
    subcommands: (spec) => `_listings_words "$cur" ${shQuote(spec.subcommands.map((s) => s.name).join(' '))}`,
    flags: (spec) => `_listings_words "$cur" ${shQuote(spec.flags.flatMap((f) => f.names).join(' '))}`,
    afterFlags: [],
  };
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
    ...dispatchLines(root, dialect),
    'complete -F _listings listings',
    '',
  ].join('\n');
}
