import type { Command } from 'commander';
import { GROUP } from '../help.js';
import { timeoutMs } from '../option-parsers.js';
import { addSettingsOptions } from '../settings.js';
import type { InitFlags } from './init-action.js';

export function registerInit(program: Command): void {
  const command = program
    .command('init')
    .description(
      'set up a profile: asks (in a terminal) for the base URL, the variable holding the API key, the shape, the marketplace, and saved defaults or the policy ids; writes the profile, then checks the base URL as doctor does',
    )
    .option('-y, --yes', 'ask nothing: the answers come from the flags (else the environment, the profile, the defaults); a missing one is a usage error')
    .option('--no-check', 'do not check the base URL once the profile is written');
  addSettingsOptions(command).optionsGroup(GROUP.sending).option('--timeout <ms>', 'time limit of each network check', timeoutMs, 10_000).optionsGroup('');
  command.action(async (flags: InitFlags & Record<string, unknown>) => {
    const { runInit } = await import('./init-action.js');
    await runInit(flags);
  });
}
