import type { Argument, Command, Option } from 'commander';
import { OPTIONS } from '../../config/options.js';
import { flagsOf } from '../../options/index.js';
import { completionScript as scriptOf, menuLine, type CompletionCommand, type CompletionFlag, type Shell, type Values } from '../../options/completion/index.js';
import { commandPath } from '../help.js';
import { completionOf, flagOf } from '../flags.js';

export { SHELLS, type Shell } from '../../options/completion/index.js';

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

/** What the value of a command's option completes to: from the flag table. */
function optionValues(option: Option, path: string): Values | undefined {
  const spec = flagsOf(path).find((flag) => flagOf(flag.name) === option.long);
  return spec === undefined ? undefined : completionOf(spec);
}

function flagSpec(option: Option, path: string): CompletionFlag {
  const names = [option.short, option.long].filter((name): name is string => name !== undefined);
  return {
    names,
    ...(option.long === undefined ? {} : { long: option.long }),
    ...(option.short === undefined ? {} : { short: option.short }),
    description: menuLine(option.description),
    value: optionValues(option, path),
  };
}

const HELP_FLAG: CompletionFlag = { names: ['-h', '--help'], long: '--help', short: '-h', description: 'display help for command', value: undefined };

function specOf(command: Command, parentPath: string | undefined): CompletionCommand {
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
    description: menuLine(command.description()),
    subcommands,
    flags: [...command.options.filter((option) => !option.hidden).map((option) => flagSpec(option, commandPath(command))), HELP_FLAG],
    args: first === undefined ? { kind: 'none' } : argumentValues(first, command),
    firstArgOnly: first === undefined || !first.variadic,
  };
}

/** The completion script of `shell` for the program: its commands, options, choices, files and profiles. */
export function completionScript(shell: Shell, program: Command): string {
  return scriptOf(shell, specOf(program, undefined));
}
