import { listingsEndpoint } from '../../client/endpoint.js';
import type { Command } from 'commander';
import { OPTIONS, OPTION_BY_KEY, PER_MARKETPLACE_KEYS, isMarketplaceSettingKey, marketplaceEnv, parseMarketplaceId, sectionName, type MarketplaceSettingKey, type OptionSpec } from '../../config/options.js';
import type { MarketplaceSetting } from '../../config/marketplace-settings.js';
import { didYouMean } from '../../config/did-you-mean.js';
import { ConfigError, UsageError } from '../../errors.js';
import { maskSecret } from '../../secrets.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint, paintOut } from '../output.js';
import { loadSettings } from '../settings.js';
import { declareFlags } from '../flags.js';

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

/**
 * The section a `--marketplace` option names, for a key a marketplace may have of its own; undefined without the
 * option. A key no marketplace has of its own is a usage error.
 */
function sectionOf(option: OptionSpec, opts: Record<string, unknown>): { name: string; key: MarketplaceSettingKey } | undefined {
  if (typeof opts.marketplace !== 'string') return undefined;
  if (!isMarketplaceSettingKey(option.key)) {
    throw new UsageError(`${option.key} is one setting for every marketplace: it cannot be set per marketplace`, {
      hint: `a marketplace may have its own: ${PER_MARKETPLACE_KEYS.join(', ')}`,
    });
  }
  let id: string;
  try {
    id = parseMarketplaceId(opts.marketplace);
  } catch (error) {
    throw new ConfigError(`--marketplace: ${(error as Error).message}`);
  }
  return { name: sectionName(id), key: option.key };
}

/** Where a marketplace's value came from, for `config list`. */
function sourceOf(name: string, key: MarketplaceSettingKey, setting: MarketplaceSetting): string {
  if (!setting.own) return setting.source;
  return setting.source === 'env' ? `env ${marketplaceEnv(name, key)}` : `profile, ${name} section`;
}

async function openFile() {
  const { ProfileStore } = await import('../../config/store.js');
  return ProfileStore.open();
}

async function openStore(opts: Record<string, unknown>) {
  const store = await openFile();
  const profile = store.activeProfile(typeof opts.profile === 'string' ? opts.profile : undefined);
  return { store, profile };
}

export function registerConfig(program: Command): void {
  const config = program.command('config').description('read and write config profiles (defaults for every command)');

  declareFlags(config.command('set <key> <value>').description('store a value in the active profile'), 'config set')
    .action(async (key: string, value: string, opts: Record<string, unknown>) => {
      const option = optionFor(key);
      const section = sectionOf(option, opts);
      let parsed;
      try {
        parsed = option.parse(value);
      } catch (error) {
        throw new ConfigError(`${key}: ${(error as Error).message}`);
      }
      // What publish and create would refuse later is refused now (plain http to a host that is not loopback, say).
      if (option.key === 'base_url') listingsEndpoint(String(parsed), { allowInsecureHttp: opts.allowInsecureHttp === true });
      const { store, profile } = await openStore(opts);
      if (section !== undefined) {
        await store.setSection(profile, section.name, section.key, String(parsed));
        err(`${key} = ${show(option, parsed)} for ${section.name} (profile ${profile})`);
        return;
      }
      await store.set(profile, option.key, parsed);
      if (option.secret) err(`${paint.yellow('warning')} storing a raw API key in ${store.path} (mode 0600); prefer an environment variable named by api_key_env`);
      err(`${key} = ${show(option, parsed)} (profile ${profile})`);
    });

  declareFlags(config.command('get <key>').description('print the value in effect (flag > env > profile > default)'), 'config get')
    .action(async (key: string, _opts: unknown, command: Command) => {
      const option = optionFor(key);
      const opts = command.optsWithGlobals();
      const section = sectionOf(option, opts);
      const loaded = await loadSettings(opts);
      const value = section === undefined ? loaded.settings[option.key] : loaded.marketplaces[section.name]?.[section.key]?.value;
      if (value === undefined) {
        err(`${key} is not set${section === undefined ? '' : ` for ${section.name}`} (profile ${loaded.profile})`);
        throw new ExitError(EXIT.rowsFailed);
      }
      out(show(option, value));
    });

  declareFlags(config.command('unset <key>').description('remove a value from the active profile'), 'config unset')
    .action(async (key: string, opts: Record<string, unknown>) => {
      const option = optionFor(key);
      const section = sectionOf(option, opts);
      const { store, profile } = await openStore(opts);
      if (section !== undefined) {
        const removed = await store.unsetSection(profile, section.name, section.key);
        err(removed ? `${key} for ${section.name} removed from profile ${profile}` : `${key} was not set for ${section.name} in profile ${profile}`);
        return;
      }
      const removed = await store.unset(profile, option.key);
      err(removed ? `${key} removed from profile ${profile}` : `${key} was not set in profile ${profile}`);
    });

  declareFlags(config.command('list').description("every setting in effect, with where it came from; then each marketplace's own values (profile sections, LISTINGS_<MARKETPLACE>_<KEY>)"), 'config list').action(async (opts: Record<string, unknown>) => {
    const loaded = await loadSettings(opts);
    const rows: { key: string; value: string | undefined; source: string }[] = OPTIONS.map((option) => {
      const value = loaded.settings[option.key];
      return { key: option.key, value: value === undefined ? undefined : show(option, value), source: loaded.sources[option.key] ?? 'unset' };
    });
    if (opts.json) {
      const marketplaces = Object.fromEntries(
        Object.entries(loaded.marketplaces).map(([name, settings]) => [name, Object.fromEntries(Object.entries(settings).map(([key, setting]) => [key, { value: setting.value, source: setting.source, own: setting.own }]))]),
      );
      out(JSON.stringify({ profile: loaded.profile, path: loaded.store.path, settings: Object.fromEntries(rows.map((r) => [r.key, { value: r.value ?? null, source: r.source }])), marketplaces }));
      return;
    }
    // A marketplace's own values, as `EBAY_GB.fulfillment_policy_id`: the ones that differ from the general values.
    for (const [name, settings] of Object.entries(loaded.marketplaces)) {
      for (const key of PER_MARKETPLACE_KEYS) {
        const setting = settings[key];
        if (setting?.own === true) rows.push({ key: `${name}.${key}`, value: setting.value, source: sourceOf(name, key, setting) });
      }
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
      out((await openFile()).path);
    });

  config
    .command('use <profile>')
    .description('make a profile the active one')
    .action(async (name: string) => {
      // Not the active profile: `config use` is how a bad current_profile in the file is fixed.
      const { checkProfileName } = await import('../../config/store.js');
      checkProfileName(name);
      const store = await openFile();
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
      const store = await openFile();
      let profile: string | undefined;
      try {
        profile = store.activeProfile();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        err(`${paint.yellow('warning')} ${error.message}: no profile is marked active`);
      }
      // A name edited into the file by hand that `config set` would refuse is never listed, so never completed.
      for (const name of store.invalidProfileNames()) err(`${paint.yellow('warning')} ${store.path} holds a profile named ${JSON.stringify(name)}, not a valid profile name (letters, digits, - _ .): ignored`);
      for (const name of store.profileNames()) out(`${name === profile ? '*' : ' '} ${name}`);
    });
}

