/**
 * The last step of `npm run build`: the help model of every command, made from the built program (its commander
 * declarations and the flag table behind them), written to dist/help.json. bin/listings.js prints a help from it
 * without loading the CLI; src/cli/help.ts lays out the CLI's own help with the same renderer.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../dist/cli/main.js';
import { helpModels } from '../dist/cli/help.js';

const target = new URL('../dist/help.json', import.meta.url);
const partial = new URL(`../dist/help.json.${process.pid}`, import.meta.url);
writeFileSync(partial, `${JSON.stringify(helpModels(await buildProgram()))}\n`);
renameSync(partial, target);
