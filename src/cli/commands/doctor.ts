import type { Command } from 'commander';
import { declareFlags } from '../flags.js';
import type { DoctorFlags } from './doctor-action.js';

export function registerDoctor(program: Command): void {
  const command = program
    .command('doctor')
    .description(
      'check the setup: the profile, the API key (never shown), the base URL (DNS, connection, TLS, one request that creates nothing), the clock, and the state directory; exit 0 when all pass, 2 when the configuration is at fault, 3 the service',
    );
  declareFlags(command, 'doctor').action(async (flags: DoctorFlags & Record<string, unknown>) => {
    const { runDoctor } = await import('./doctor-action.js');
    await runDoctor(flags);
  });
}
