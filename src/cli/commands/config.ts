import { listingsEndpoint } from '../../client/endpoint.js';
import type { Command } from 'commander';
import { OPTIONS, OPTION_BY_KEY, type OptionSpec } from '../../config/options.js';
import { didYouMean } from '../../config/did-you-mean.js';
import { ConfigError, UsageError } from '../../errors.js';
import { maskSecret } from '../../secrets.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint, paintOut } from '../output.js';
import { addSettingsOptions, loadSettings } from '../settings.js';

function optionFor(key: string): OptionSpec {
  const option = OPTION_BY_KEY.get(key);
  if (option) return option;
  const guess = didYouMean(key, OPTION_BY_KEY.keys());
  throw new UsageError(`unknown config key ${JSON.stringify(key)}${guess ? `; did you mean ${guess}?` : ''}`, {
    hint: `keys: ${OPTIONS.map((o) => o.key).join(', ')}`,
  });
}

function show(option: OptionSpec, value: unknown): string {
  return option.secret && typeof value === 'string' ? maskSecret(value) : String(value);
}

async function openStore(opts: Record<string, unknown>) {
  const { ProfileStore } = await import('../../config/store.js');
  const store = await ProfileStore.open();
  const profile = store.activeProfile(typeof opts.profile === 'string' ? opts.profile : undefined);
  return { store, profile };
}

export function registerConfig(program: Command): void {
  const config = program.command('config').description('read and write config profiles (defaults for every command)');

  config
    .command('set <key> <value>')
    .description('store a value in the active profile')
    .option('--profile <name>', 'profile to write (default: the active one)')
    .option('--allow-insecure-http', 'store a plain http base_url to a host that is not loopback (each run then needs --allow-insecure-http too)')
    .action(async (key: string, value: string, opts: Record<string, unknown>) => {
      const option = optionFor(key);
      let parsed;
      try {
        parsed = option.parse(value);
      } catch (error) {
        throw new ConfigError(`${key}: ${(error as Error).message}`);
      }
      // What publish and create would refuse later is refused now (plain http to a host that is not loopback, say).
      if (option.key === 'base_url') listingsEndpoint(String(parsed), { allowInsecureHttp: opts.allowInsecureHttp === true });
      const { store, profile } = await openStore(opts);
      await store.set(profile, option.key, parsed);
      if (option.secret) err(`${paint.yellow('warning')} storing a raw API key in ${store.path} (mode 0600); prefer an environment variable named by api_key_env`);
      err(`${key} = ${show(option, parsed)} (profile ${profile})`);
    });

  config
    .command('get <key>')
    .description('print the value in effect (flag > env > profile > default)')
    .option('--profile <name>', 'profile to read (default: the active one)')
    .action(async (key: string, _opts: unknown, command: Command) => {
      const option = optionFor(key);
      const loaded = await loadSettings(command.optsWithGlobals());
      const value = loaded.settings[option.key];
      if (value === undefined) {
        err(`${key} is not set (profile ${loaded.profile})`);
        throw new ExitError(EXIT.rowsFailed);
      }
      out(show(option, value));
    });

  config
    .command('unset <key>')
    .description('remove a value from the active profile')
    .option('--profile <name>', 'profile to change (default: the active one)')
    .action(async (key: string, opts: Record<string, unknown>) => {
      const option = optionFor(key);
      const { store, profile } = await openStore(opts);
      const removed = await store.unset(profile, option.key);
      err(removed ? `${key} removed from profile ${profile}` : `${key} was not set in profile ${profile}`);
    });

  addSettingsOptions(
    config
      .command('list')
      .description('every setting in effect, with where it came from')
      .option('--json', 'print {key: {value, source}} as JSON'),
  ).action(async (opts: Record<string, unknown>) => {
    const loaded = await loadSettings(opts);
    const rows = OPTIONS.map((option) => {
      const value = loaded.settings[option.key];
      return { key: option.key, value: value === undefined ? undefined : show(option, value), source: loaded.sources[option.key] ?? 'unset' };
    });
    if (opts.json) {
      out(JSON.stringify({ profile: loaded.profile, path: loaded.store.path, settings: Object.fromEntries(rows.map((r) => [r.key, { value: r.value ?? null, source: r.source }])) }));
      return;
    }
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
      const { store } = await openStore({});
      out(store.path);
    });

  config
    .command('use <profile>')
    .description('make a profile the active one')
    .action(async (name: string) => {
      const { store } = await openStore({});
      if (!store.profileNames().includes(name)) {
        throw new ConfigError(`no profile named ${JSON.stringify(name)}`, {
          hint: `known profiles: ${store.profileNames().join(', ')}; create it with: listings config set --profile ${name} KEY VALUE`,
        });
      }
      await store.use(name);
      err(`using profile ${name}`);
    });

  config
    .command('profiles')
    .description('list the profiles; * marks the active one')
    .action(async () => {
      const { store, profile } = await openStore({});
      for (const name of store.profileNames()) out(`${name === profile ? '*' : ' '} ${name}`);
    });
}

