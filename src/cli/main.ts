import { Command } from 'commander';
import { VERSION } from '../version.js';
import { reportError, withOptionHints } from './report-error.js';
import { EXIT } from './exit-codes.js';
import { finishHelp } from './help.js';
import { runnerSafe, terminalSafe, tolerateClosedPipes } from './output.js';
// Command registrations: each module declares its options and lazily imports what its action needs.
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerCreate } from './commands/create.js';
import { registerEnqueue } from './commands/enqueue.js';
import { registerDoctor } from './commands/doctor.js';
import { registerInit } from './commands/init.js';
import { registerListen } from './commands/listen.js';
import { registerSandbox } from './commands/sandbox.js';
import { registerPublish } from './commands/publish.js';
import { registerStream } from './commands/stream.js';
import { registerValidate } from './commands/validate.js';

export function buildProgram(): Command {
  const program = new Command('listings')
    .description('Publish product catalogs to sales marketplaces through the Listing Publication Service.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    // commander's own errors quote the argv (an unknown option, a bad value): they leave as every other line does.
    .configureOutput({ outputError: (text, write) => write(runnerSafe(terminalSafe(withOptionHints(text), false))) });
  program.commandsGroup('Publishing:');
  registerPublish(program);
  registerStream(program);
  registerEnqueue(program);
  registerValidate(program);
  registerCreate(program);
  program.commandsGroup('Setting up:');
  registerInit(program);
  registerDoctor(program);
  registerConfig(program);
  registerCompletion(program);
  program.commandsGroup('Trying out:');
  registerSandbox(program);
  registerListen(program);
  program.commandsGroup('Commands:');
  finishHelp(program);
  return program;
}

export async function run(argv: string[]): Promise<void> {
  tolerateClosedPipes();
  try {
    await buildProgram().parseAsync(argv);
    process.exitCode ??= EXIT.ok;
  } catch (error) {
    process.exitCode = reportError(error);
  }
}
