import type { Command } from 'commander';
import { GROUP } from '../help.js';
import { timeoutMs } from '../option-parsers.js';
import { addSettingsOptions } from '../settings.js';
import type { DoctorFlags } from './doctor-action.js';

export function registerDoctor(program: Command): void {
  const command = program
    .command('doctor')
    .description(
      'check the setup: the profile, the API key (never shown), the base URL (DNS, connection, TLS, one request that creates nothing), the clock, and the state directory; exit 0 when all pass, 2 when the configuration is at fault, 3 the service',
    );
  addSettingsOptions(command)
    .optionsGroup(GROUP.sending)
    .option('--timeout <ms>', 'time limit of each network check', timeoutMs, 10_000)
    .optionsGroup(GROUP.output)
    .option('--json', 'print the checks as one JSON object: {ok, exit_code, checks: [{name, status, message, fix}]}')
    .optionsGroup('');
  command.action(async (flags: DoctorFlags & Record<string, unknown>) => {
    const { runDoctor } = await import('./doctor-action.js');
    await runDoctor(flags);
  });
}
