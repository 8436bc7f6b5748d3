import type { Command } from 'commander';
import { declareFlags } from '../flags.js';
import type { InitFlags } from './init-action.js';

export function registerInit(program: Command): void {
  const command = program
    .command('init')
    .description(
      'set up a profile: asks (in a terminal) for the base URL, the variable holding the API key, the shape, the marketplace, and saved defaults or the policy ids; writes the profile, then checks the base URL as doctor does',
    );
  declareFlags(command, 'init').action(async (flags: InitFlags & Record<string, unknown>) => {
    const { runInit } = await import('./init-action.js');
    await runInit(flags);
  });
}
