import { Help, type Command, type Option } from 'commander';
import { GROUPS } from '../options/spec.js';
import { EXAMPLES } from '../options/help/examples.js';
import { renderHelp, type HelpItem, type HelpModel, type HelpSection } from '../options/help/render.js';

/** The order of the help groups: the table's (src/options/spec.ts GROUPS), commander's own `Options:` last. */
const ORDER: readonly string[] = [...Object.values(GROUPS).filter((heading) => heading !== '').map((heading) => `${heading}:`), 'Options:'];

/** `config list` for the subcommand list of config; '' for the program itself. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** commander's grouping, with the groups in the order of ORDER. */
function groupItems<T extends Command | Option>(this: Help, unsorted: T[], visible: T[], getGroup: (item: T) => string): Map<string, T[]> {
  const groups = Help.prototype.groupItems.call(this, unsorted, visible, getGroup as (item: Command | Option) => string) as Map<string, T[]>;
  const rank = (heading: string): number => ORDER.indexOf(heading);
  return new Map([...groups].sort((a, b) => rank(a[0]) - rank(b[0])));
}

/** commander's description of an option, without the `(default: [])` of a repeatable one (its help says so). */
function optionDescription(this: Help, option: Option): string {
  return Help.prototype.optionDescription.call(this, option).replace(' (default: [])', '');
}

/** The help of `command` as plain data, from commander's view of it (which options and commands it shows, and how). */
export function helpModel(command: Command, helper: Help): HelpModel {
  const options = helper.groupItems([...command.options], helper.visibleOptions(command), (option) => option.helpGroupHeading ?? 'Options:');
  const commands = helper.groupItems([...command.commands], helper.visibleCommands(command), (sub) => sub.helpGroup() || 'Commands:');
  const sections: HelpSection[] = [
    { heading: 'Arguments:', items: helper.visibleArguments(command).map((arg): HelpItem => [helper.argumentTerm(arg), helper.argumentDescription(arg)]) },
    ...[...options].map(([heading, list]) => ({ heading, items: list.map((option): HelpItem => [helper.optionTerm(option), helper.optionDescription(option)]) })),
    ...[...commands].map(([heading, list]) => ({ heading, items: list.map((sub): HelpItem => [helper.subcommandTerm(sub), helper.subcommandDescription(sub)]) })),
  ];
  const examples = EXAMPLES[commandPath(command)] ?? [];
  return { usage: helper.commandUsage(command), description: helper.commandDescription(command), sections: sections.filter((section) => section.items.length > 0), examples };
}

/** The help model of every command of `program`, by path ('' for the program): what `npm run build` writes to dist/help.json. */
export function helpModels(program: Command): Record<string, HelpModel> {
  const models: Record<string, HelpModel> = {};
  const visit = (command: Command): void => {
    models[commandPath(command)] = helpModel(command, command.createHelp());
    command.commands.forEach(visit);
  };
  visit(program);
  return models;
}

/**
 * The last touch on every command's help: the groups in one order, and the layout of src/options/help/render.ts
 * (the one bin/listings.js prints from dist/help.json), examples at the end. Cheap: no module is loaded.
 */
export function finishHelp(program: Command): void {
  const formatHelp = (command: Command, helper: Help): string => renderHelp(helpModel(command, helper), helper.helpWidth ?? 80);
  const visit = (command: Command): void => {
    command.configureHelp({ groupItems, optionDescription, formatHelp });
    command.commands.forEach(visit);
  };
  visit(program);
}
