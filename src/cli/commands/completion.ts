import { Argument, type Command } from 'commander';
import type { Shell } from './completion-script.js';

const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a completion script for bash, zsh or fish: commands, options, their choices, files for sources and reports, profile names')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .action(async (shell: Shell, _flags: unknown, command: Command) => {
      const [{ completionScript }, { out }] = await Promise.all([import('./completion-script.js'), import('../output.js')]);
      // The root program, whose commands (each as registered) the script completes.
      let root = command;
      while (root.parent) root = root.parent;
      out(completionScript(shell, root).trimEnd());
    });
}
