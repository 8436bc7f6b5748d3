import type { Argument, Command, Option } from 'commander';
import { OPTIONS } from '../../config/options.js';
import { SHAPES } from '../../contract/shapes.js';
import { VERSION } from '../../version.js';

/** The shells `listings completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What a word completes to: nothing offered (free text), file names, fixed words, or the profiles of the config. */
type Values = { kind: 'none' } | { kind: 'files' } | { kind: 'profiles' } | { kind: 'words'; words: readonly string[] };

interface FlagSpec {
  /** `--format`, `-h`... : the spellings of one option. */
  names: string[];
  long?: string;
  short?: string;
  description: string;
  /** What its value completes to; undefined for a switch that takes none. */
  value: Values | undefined;
}

interface CommandSpec {
  /** `listings`, `listings/config`, `listings/config/set`. */
  path: string;
  name: string;
  description: string;
  subcommands: CommandSpec[];
  flags: FlagSpec[];
  /** What the arguments complete to. */
  args: Values;
  /** Only the first argument completes (right after the command's name); else every one (a variadic list). */
  firstArgOnly: boolean;
}

/** Completion of arguments by their name, for those commander knows no choices of. */
function argumentValues(argument: Argument, command: Command): Values {
  if (argument.argChoices !== undefined) return { kind: 'words', words: argument.argChoices };
  switch (argument.name()) {
    case 'source':
      return { kind: 'files' };
    case 'key':
      return { kind: 'words', words: OPTIONS.map((option) => option.key) };
    case 'profile':
      return { kind: 'profiles' };
    case 'command':
      return { kind: 'words', words: (command.parent ?? command).commands.map((sub) => sub.name()) };
    default:
      return { kind: 'none' };
  }
}

/** Values of options that are checked by the settings table rather than by commander's choices. */
const OPTION_WORDS: Readonly<Record<string, readonly string[]>> = { '--shape': SHAPES };

function optionValues(option: Option): Values | undefined {
  if (!option.required && !option.optional) return undefined;
  if (option.argChoices !== undefined) return { kind: 'words', words: option.argChoices };
  const words = option.long === undefined ? undefined : OPTION_WORDS[option.long];
  if (words !== undefined) return { kind: 'words', words };
  if (option.long === '--profile') return { kind: 'profiles' };
  const placeholder = /<([^>]+)>|\[([^\]]+)\]/.exec(option.flags);
  const name = placeholder?.[1] ?? placeholder?.[2] ?? '';
  return /file|report|path|dir/.test(name) ? { kind: 'files' } : { kind: 'none' };
}

/** The first clause of a description: completion menus have one short line. */
function short(description: string): string {
  let first = (description.split(/; | \(/)[0] ?? description).replace(/\s+/g, ' ').trim();
  // `set up a profile: asks...` -> `set up a profile`; but `for JSON: the key...` needs what follows.
  const colon = first.indexOf(': ');
  if (colon >= 12) first = first.slice(0, colon);
  if (first.length <= 70) return first;
  const cut = first.lastIndexOf(' ', 69);
  return `${first.slice(0, cut > 40 ? cut : 69)}…`;
}

function flagSpec(option: Option): FlagSpec {
  const names = [option.short, option.long].filter((name): name is string => name !== undefined);
  return {
    names,
    ...(option.long === undefined ? {} : { long: option.long }),
    ...(option.short === undefined ? {} : { short: option.short }),
    description: short(option.description),
    value: optionValues(option),
  };
}

const HELP_FLAG: FlagSpec = { names: ['-h', '--help'], long: '--help', short: '-h', description: 'display help for command', value: undefined };

function specOf(command: Command, parentPath: string | undefined): CommandSpec {
  const path = parentPath === undefined ? command.name() : `${parentPath}/${command.name()}`;
  const args = command.registeredArguments;
  const first = args[0];
  const subcommands = command.commands.map((sub) => specOf(sub, path));
  // commander adds `help [command]` to a program with subcommands on its own; it is not in `commands`.
  if (parentPath === undefined && command.commands.length > 0) {
    subcommands.push({ path: `${path}/help`, name: 'help', description: 'display help for command', subcommands: [], flags: [], args: { kind: 'words', words: command.commands.map((sub) => sub.name()) }, firstArgOnly: true });
  }
  return {
    path,
    name: command.name(),
    description: short(command.description()),
    subcommands,
    flags: [...command.options.filter((option) => !option.hidden).map(flagSpec), HELP_FLAG],
    args: first === undefined ? { kind: 'none' } : argumentValues(first, command),
    firstArgOnly: first === undefined || !first.variadic,
  };
}

function allSpecs(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(allSpecs)];
}

/** 'text' for sh-like shells: single quotes, a quote written as '\''. */
function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** 'text' for fish: in single quotes only \ and ' are escaped. */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/**
 * The profile names of the config, one a line. They are the one completion that comes from outside the program (a
 * config file may be edited by hand), so no script ever evaluates them: bash matches them with `[[ ]]`, never
 * `compgen -W` (which expands `$(...)` in its word list), and every shell keeps only the names `config set` accepts.
 */
const PROFILES_SH = 'listings config profiles 2>/dev/null | cut -c3-';
/** The names `config set` accepts (src/config/store.ts), as each shell writes the test. */
const PROFILE_RE = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

function header(shell: Shell, comment: string): string[] {
  return [`# ${shell} completion for listings ${VERSION}, generated by \`listings completion ${shell}\` from the commands it knows.`, ...comment.split('\n').map((line) => `# ${line}`)];
}

function bash(root: CommandSpec): string {
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

function zsh(root: CommandSpec): string {
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

function fish(root: CommandSpec): string {
  const specs = allSpecs(root);
  const paths = specs.filter((s) => s !== root).map((s) => s.path);
  const lines: string[] = [];
  const fishValues = (values: Values): string => {
    switch (values.kind) {
      case 'files':
        return '-r -F';
      case 'profiles':
        return `-x -a ${fishQuote(`(listings config profiles 2>/dev/null | string sub -s 3 | string match -r '${PROFILE_RE}')`)}`;
      case 'words':
        return `-x -a ${fishQuote(values.words.join(' '))}`;
      default:
        return '-x';
    }
  };
  for (const spec of specs) {
    const at = `-n ${fishQuote(`__listings_at ${spec.path}`)}`;
    for (const sub of spec.subcommands) lines.push(`complete -c listings ${at} -a ${fishQuote(sub.name)} -d ${fishQuote(sub.description)}`);
    for (const flag of spec.flags) {
      const names = [flag.short === undefined ? '' : `-s ${flag.short.slice(1)}`, flag.long === undefined ? '' : `-l ${flag.long.slice(2)}`].filter((part) => part !== '').join(' ');
      const value = flag.value === undefined ? '' : ` ${fishValues(flag.value)}`;
      lines.push(`complete -c listings ${at} ${names}${value} -d ${fishQuote(flag.description)}`);
    }
    if (spec.args.kind !== 'none') {
      const condition = spec.firstArgOnly ? `__listings_at ${spec.path}; and __listings_after ${spec.name}` : `__listings_at ${spec.path}`;
      const values = spec.args.kind === 'files' ? '-F' : fishValues(spec.args).replace(/^-x /, '');
      lines.push(`complete -c listings -n ${fishQuote(condition)} ${values}`);
    }
  }
  return [
    ...header('fish', 'Install: listings completion fish > ~/.config/fish/completions/listings.fish'),
    '',
    '# The command path: listings, listings/config, listings/config/set...',
    'function __listings_cmd',
    '    set -l cmd listings',
    '    set -l tokens (commandline -opc)',
    '    for word in $tokens[2..-1]',
    '        switch "$cmd/$word"',
    `            case ${paths.join(' ')}`,
    '                set cmd "$cmd/$word"',
    '        end',
    '    end',
    '    echo $cmd',
    'end',
    'function __listings_at',
    '    test (__listings_cmd) = $argv[1]',
    'end',
    '# The word before the cursor is the name of the command: its first argument comes next.',
    'function __listings_after',
    '    set -l tokens (commandline -opc)',
    '    test "$tokens[-1]" = $argv[1]',
    'end',
    '',
    'complete -c listings -f',
    ...lines,
    '',
  ].join('\n');
}

/** The completion script of `shell` for the program: its commands, options, choices, files and profiles. */
export function completionScript(shell: Shell, program: Command): string {
  const root = specOf(program, undefined);
  switch (shell) {
    case 'bash':
      return bash(root);
    case 'zsh':
      return zsh(root);
    case 'fish':
      return fish(root);
  }
}
