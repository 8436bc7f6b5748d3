import type { Command } from 'commander';
import { addSettingsOptions, loadSettings } from '../settings.js';
import { collect } from '../catalog-options.js';
import { GROUP } from '../help.js';
import { timeoutMs } from '../option-parsers.js';

export function registerCreate(program: Command): void {
  addSettingsOptions(
    program
      .command('create <sku>')
      .description('create or update the listing of one SKU')
      .optionsGroup(GROUP.listing)
      .option('--image <url>', 'image URL (repeat for several)', collect, [])
      .option('--title <title>', 'item title (wrapped shape)')
      .optionsGroup(GROUP.sending)
      .option('--timeout <ms>', 'time limit of the request', timeoutMs)
      .optionsGroup(GROUP.output)
      .option('--json', 'print the listing the service answered as JSON')
      .optionsGroup(''),
  ).action(async (sku: string, opts: Record<string, unknown>) => {
    const { runCreate } = await import('./create-action.js');
    await runCreate(sku, opts, await loadSettings(opts));
  });
}
