/**
 * The last step of `npm run build`: the help model of every command, by path ('' for the program), made from the
 * built program (its commander declarations and the flag table behind them) and written to dist/help.json.
 * bin/listings.js prints a help from it without loading the CLI, with the renderer the CLI lays out its own with.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../dist/cli/main.js';
import { commandPath, helpModel } from '../dist/cli/help.js';

const models = {};
const visit = (command) => {
  models[commandPath(command)] = helpModel(command, command.createHelp());
  command.commands.forEach(visit);
};
visit(await buildProgram());
const target = new URL('../dist/help.json', import.meta.url);
const partial = new URL(`../dist/help.json.${process.pid}`, import.meta.url);
writeFileSync(partial, `${JSON.stringify(models)}\n`);
renameSync(partial, target);
