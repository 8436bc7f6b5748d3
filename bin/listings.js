#!/usr/bin/env node
import { readFileSync } from 'node:fs';

/**
 * The command path whose help alone argv asks for: '' for `--help`, `-h` or `help`; `publish` for `publish --help`,
 * `publish -h` or `help publish`; `config set` for `config set --help`. Undefined for anything else.
 */
function helpPath(args) {
  const last = args.at(-1);
  if (last === '--help' || last === '-h') {
    const words = args.slice(0, -1);
    return words.every((word) => /^[a-z][a-z0-9-]*$/.test(word)) ? words.join(' ') : undefined;
  }
  return args[0] === 'help' && args.length <= 2 ? (args[1] ?? '') : undefined;
}

/**
 * That help, from the models `npm run build` wrote (dist/help.json) and the renderer the CLI lays out its own help
 * with, to the width commander would use (the terminal's, else 80). Undefined when it cannot be made (no such
 * command, no or a damaged file): the full CLI answers then.
 */
async function prebuiltHelp(path) {
  try {
    const models = JSON.parse(readFileSync(new URL('../dist/help.json', import.meta.url), 'utf8'));
    if (!Object.hasOwn(models, path)) return undefined;
    const { renderHelp } = await import('../dist/options/help/render.js');
    return renderHelp(models[path], (process.stdout.isTTY ? process.stdout.columns : undefined) ?? 80);
  } catch {
    return undefined;
  }
}

/** Text the CLI need not load for: the version (as src/version.ts, from package.json), or a help alone. */
async function answerFirst(args) {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    return `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`;
  }
  const path = helpPath(args);
  return path === undefined ? undefined : prebuiltHelp(path);
}

const answer = await answerFirst(process.argv.slice(2));
if (answer === undefined) {
  const { run } = await import('../dist/bundle/main.js');
  await run(process.argv);
} else {
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(answer);
}
