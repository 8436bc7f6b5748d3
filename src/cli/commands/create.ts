import type { Command } from 'commander';
import { loadSettings } from '../settings.js';
import { declareFlags } from '../flags.js';
import { CREATE_EXITS, exitCodesText } from '../../run/verdict.js';

export function registerCreate(program: Command): void {
  const command = program.command('create <sku>').description(`create or update the listing of one SKU; ${exitCodesText(CREATE_EXITS)}`);
  declareFlags(command, 'create').action(async (sku: string, opts: Record<string, unknown>) => {
    const { runCreate } = await import('./create-action.js');
    await runCreate(sku, opts, () => loadSettings(opts));
  });
}
