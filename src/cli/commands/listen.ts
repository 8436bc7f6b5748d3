import type { Command } from 'commander';
import { declareFlags } from '../flags.js';
import type { ListenFlags } from './listen-action.js';

export function registerListen(program: Command): void {
  const command = program
    .command('listen')
    .description("receive the service's webhook callbacks on this machine: print each one, answer 2xx, forward it to a local app and record it; --replay sends a recording again");
  declareFlags(command, 'listen').action(async (flags: ListenFlags) => {
    const { runListen } = await import('./listen-action.js');
    await runListen(flags);
  });
}
