import { allSpecs, fishQuote, header, PROFILE_RE, type CompletionCommand, type Values } from './tree.js';

/** The fish completion script of the program's commands. */
export function fishScript(root: CompletionCommand): string {
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
