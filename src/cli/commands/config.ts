import type { Command } from 'commander';
import { profileListing, setSetting, settingRows, settingsJson, settingValue, shownValue as show, unsetSetting, useProfile, type ProfileWhere } from '../../setup/profile-settings.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint, paintOut } from '../output.js';
import { loadSettings } from '../settings.js';
import { declareFlags } from '../flags.js';

/** The marketplace a `--marketplace` option names, if any. */
const marketplaceOf = (opts: Record<string, unknown>): string | undefined => (typeof opts.marketplace === 'string' ? opts.marketplace : undefined);

async function openFile() {
  const { ProfileStore } = await import('../../config/store.js');
  return ProfileStore.open();
}

/** The profile a command changes: the one `--profile` names, else the active one; with `--marketplace`, its section. */
const whereOf = (opts: Record<string, unknown>): ProfileWhere => ({ profile: typeof opts.profile === 'string' ? opts.profile : undefined, marketplace: marketplaceOf(opts) });

export function registerConfig(program: Command): void {
  const config = program.command('config').description('read and write config profiles (defaults for every command)');

  declareFlags(config.command('set <key> <value>').description('store a value in the active profile'), 'config set')
    .action(async (key: string, value: string, opts: Record<string, unknown>) => {
      const stored = await setSetting(key, value, { ...whereOf(opts), allowInsecureHttp: opts.allowInsecureHttp === true });
      const shown = show(stored.option, stored.value);
      if (stored.section !== undefined) {
        err(`${key} = ${shown} for ${stored.section.name} (profile ${stored.profile})`);
        return;
      }
      if (stored.option.secret) err(`${paint.yellow('warning')} storing a raw API key in ${stored.path} (mode 0600); prefer an environment variable named by api_key_env`);
      err(`${key} = ${shown} (profile ${stored.profile})`);
    });

  declareFlags(config.command('get <key>').description('print the value in effect (flag > env > profile > default)'), 'config get')
    .action(async (key: string, _opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals();
      const loaded = await loadSettings(opts);
      const { option, section, value } = settingValue(loaded, key, marketplaceOf(opts));
      if (value === undefined) {
        err(`${key} is not set${section === undefined ? '' : ` for ${section.name}`} (profile ${loaded.profile})`);
        throw new ExitError(EXIT.rowsFailed);
      }
      out(show(option, value));
    });

  declareFlags(config.command('unset <key>').description('remove a value from the active profile'), 'config unset')
    .action(async (key: string, opts: Record<string, unknown>) => {
      const { removed, section, profile } = await unsetSetting(key, whereOf(opts));
      const where = section === undefined ? '' : ` for ${section.name}`;
      err(removed ? `${key}${where} removed from profile ${profile}` : `${key} was not set${where} in profile ${profile}`);
    });

  declareFlags(config.command('list').description("every setting in effect, with where it came from; then each marketplace's own values (profile sections, LISTINGS_<MARKETPLACE>_<KEY>)"), 'config list').action(async (opts: Record<string, unknown>) => {
    const loaded = await loadSettings(opts);
    if (opts.json) {
      out(JSON.stringify(settingsJson(loaded)));
      return;
    }
    const rows = settingRows(loaded, true);
    err(paint.dim(`profile ${loaded.profile} (${loaded.store.path})`));
    const width = Math.max(...rows.map((r) => r.key.length));
    for (const row of rows) {
      out(`${row.key.padEnd(width)}  ${row.value ?? paintOut.dim('-')}  ${paintOut.dim(`(${row.source})`)}`);
    }
  });

  config
    .command('path')
    .description('print the path of the config file')
    .action(async () => {
      out((await openFile()).path);
    });

  config
    .command('use <profile>')
    .description('make a profile the active one')
    .action(async (name: string) => {
      // Not the active profile: `config use` is how a bad current_profile in the file is fixed.
      await useProfile(name);
      err(`using profile ${name}`);
    });

  config
    .command('profiles')
    .description('list the profiles; * marks the active one')
    .action(async () => {
      const [{ names, active, activeError, invalid, path }, { shownProfileName }] = await Promise.all([profileListing(), import('../../config/store.js')]);
      if (activeError !== undefined) err(`${paint.yellow('warning')} ${activeError.message}: no profile is marked active`);
      // A name edited into the file by hand that `config set` would refuse is never listed, so never completed.
      for (const name of invalid) err(`${paint.yellow('warning')} ${path} holds a profile named ${shownProfileName(name)}, not a valid profile name (letters, digits, - _ ., at most 64 characters): ignored`);
      for (const name of names) out(`${name === active ? '*' : ' '} ${name}`);
    });
}
