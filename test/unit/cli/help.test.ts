import { describe, expect, it } from 'vitest';
import { Help, type Command } from 'commander';
import { buildProgram } from '../../../src/cli/main.js';
import { commandPath, EXAMPLES } from '../../../src/cli/help.js';

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

const commands = allCommands(await buildProgram());

describe('help of every command', () => {

  it('has examples', () => {
    const missing = commands.map(commandPath).filter((path) => EXAMPLES[path] === undefined);
    expect(missing).toEqual([]);
  });

  it('examples name only commands and long flags that exist', () => {
    const root = commands[0] as Command;
    for (const examples of Object.values(EXAMPLES)) {
      for (const [line] of examples) {
        const words = line.replace(/^.*?\blistings /, 'listings ').split(/\s+/);
        if (words[0] !== 'listings') continue;
        // The command an example runs: the longest run of subcommand names after `listings`.
        let command = root;
        for (const word of words.slice(1)) {
          const sub = command.commands.find((c) => c.name() === word);
          if (sub === undefined) break;
          command = sub;
        }
        const known = new Set(command.options.map((option) => option.long));
        for (const flag of line.match(/(?<=\s)--[a-z0-9-]+/g) ?? []) expect(known.has(flag), `${line}: ${flag}`).toBe(true);
      }
    }
  });

  it('is laid out as commander 14 lays out its own, then the examples, at any width', () => {
    for (const command of commands) {
      for (const width of [undefined, 0, 20, 39, 40, 60, 75, 78, 100, 200]) {
        const helper = command.createHelp();
        helper.prepareContext(width === undefined ? {} : { helpWidth: width });
        const examples = (EXAMPLES[commandPath(command)] ?? []).flatMap(([line, does]) => [`  # ${does}`, `  ${line}`]);
        const expected = `${Help.prototype.formatHelp.call(helper, command, helper)}\nExamples:\n${examples.join('\n')}\n\n`;
        expect(helper.formatHelp(command, helper), `${commandPath(command)} at ${width}`).toBe(expected);
      }
    }
  });
});

describe('help of create', () => {
  // Before: create's --marketplace took the settings table's words, "several, comma-separated (EBAY_US,EBAY_GB),
  // publish each row to each", for a command that sends one listing and refuses several (exit 2).
  it('offers one marketplace, not several', () => {
    const create = commands.find((command) => commandPath(command) === 'create');
    const marketplace = create?.options.find((option) => option.long === '--marketplace');
    expect(marketplace?.description).toBe('target marketplace: EBAY_US (flat) or ebay (wrapped); one, since create sends one listing (env LISTINGS_MARKETPLACE)');
    const publish = commands.find((command) => commandPath(command) === 'publish');
    expect(publish?.options.find((option) => option.long === '--marketplace')?.description).toMatch(/several, comma-separated/);
  });
});

describe('help of create, its exit codes', () => {
  // Before: publish and enqueue listed their exit codes in their help, create none, for a command CI runs alone.
  it('lists them as publish does', () => {
    const create = commands.find((command) => commandPath(command) === 'create');
    expect(create?.description()).toBe('create or update the listing of one SKU; exit 0 listing made, 1 rejected by the service, or invalid (nothing sent), 2 usage or settings, 3 service unusable');
  });
});
