import { Command, CommanderError } from 'commander';
import { setFlagsFromString } from 'node:v8';
import { VERSION } from '../version.js';
import { EXIT } from './exit-codes.js';
import { finishHelp } from './help.js';
import { givesSwitch } from './repeat-flags.js';
import { runnerSafe, terminalSafe, tolerateClosedPipes, withOptionHints } from './output.js';

type Register = (program: Command) => void;

/**
 * The commands in the order of the program's help, under their group headings. Each declaration module is imported
 * only when its command is declared: a command run by name declares itself alone (its help and its action need no
 * other), so it loads none of the others' declarations.
 */
const COMMANDS: readonly (readonly [group: string, name: string, load: () => Promise<Register>])[] = [
  ['Publishing:', 'publish', async () => (await import('./commands/publish.js')).registerPublish],
  ['Publishing:', 'stream', async () => (await import('./commands/stream.js')).registerStream],
  ['Publishing:', 'enqueue', async () => (await import('./commands/enqueue.js')).registerEnqueue],
  ['Publishing:', 'validate', async () => (await import('./commands/validate.js')).registerValidate],
  ['Publishing:', 'create', async () => (await import('./commands/create.js')).registerCreate],
  ['Setting up:', 'init', async () => (await import('./commands/init.js')).registerInit],
  ['Setting up:', 'doctor', async () => (await import('./commands/doctor.js')).registerDoctor],
  ['Setting up:', 'config', async () => (await import('./commands/config.js')).registerConfig],
  ['Setting up:', 'completion', async () => (await import('./commands/completion.js')).registerCompletion],
  ['Trying out:', 'sandbox', async () => (await import('./commands/sandbox.js')).registerSandbox],
  ['Trying out:', 'listen', async () => (await import('./commands/listen.js')).registerListen],
];

/** The commands to declare for argv: the one named first, or all (the program's help, `help`, `completion`, an unknown word). */
function commandsFor(argv: readonly string[] | undefined): typeof COMMANDS {
  const named = argv?.[2];
  // completion writes the script of every command; `help` and a mistyped name list or suggest them all.
  if (named === undefined || named === 'completion') return COMMANDS;
  const only = COMMANDS.filter(([, name]) => name === named);
  return only.length > 0 ? only : COMMANDS;
}

/** The program with every command (or, given argv, only the command it runs). */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('listings')
    .description('Publish product catalogs to sales marketplaces through the Listing Publication Service.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    // commander's own errors quote the argv (an unknown option, a bad value): they leave as every other line does.
    .configureOutput({ outputError: (text, write) => write(runnerSafe(terminalSafe(withOptionHints(text), false))) });
  const commands = commandsFor(argv);
  const registers = await Promise.all(commands.map(([, , load]) => load()));
  let group: string | undefined;
  commands.forEach(([heading], index) => {
    if (heading !== group) program.commandsGroup((group = heading));
    registers[index]?.(program);
  });
  program.commandsGroup('Commands:');
  finishHelp(program);
  return program;
}

/**
 * undici parses answers with WebAssembly. Once that code is warm, V8 recompiles it with its optimising compiler on a
 * background thread, and the process waits for that job at exit: a 20-row publish sat 150-200 ms after its summary
 * (a third of its run) for code it would never use. The baseline compiler's code alone parses as fast here (a bare
 * undici client, 100,000 requests: the same CPU within noise), so the CLI's process keeps to it. Set before the
 * first request compiles the parser; the library leaves its host's flags alone.
 */
function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * `create --json` promises one document on stdout whatever happens, a command line it cannot read included: commander
 * refuses one (an unknown option, a missing SKU or value) before the action runs, often before it has assigned
 * `--json` itself, so the switch is looked for in the raw words of argv, as commander would read them.
 */
function createJsonAsked(program: Command | undefined, argv: readonly string[]): boolean {
  const create = argv[2] === 'create' ? program?.commands.find((command) => command.name() === 'create') : undefined;
  return create !== undefined && givesSwitch(create, '--json', argv.slice(2));
}

export async function run(argv: string[]): Promise<void> {
  tolerateClosedPipes();
  baselineWasmOnly();
  let program: Command | undefined;
  try {
    program = await buildProgram(argv);
    await program.parseAsync(argv);
    process.exitCode ??= EXIT.ok;
  } catch (error) {
    // --help ends here too: it needs none of the error wording.
    const helped = error instanceof CommanderError && error.exitCode === 0;
    // The action printed its failure already; this is for what failed before it (printed once either way).
    if (!helped && createJsonAsked(program, argv)) (await import('./commands/create-failure.js')).printCreateFailure(error);
    process.exitCode = helped ? EXIT.ok : (await import('./report-error.js')).reportError(error);
  }
}
