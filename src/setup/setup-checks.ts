import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Check } from '../client/diagnose-check.js';
import { isLoopbackHost, listingsEndpoint } from '../client/endpoint.js';
import { OPTION_BY_KEY } from '../config/options.js';
import { DEFAULT_PROFILE } from '../config/store.js';
import { ListingsError, type NameSetting } from '../errors.js';
import { registerSecret, headerValueFault } from '../secrets.js';
import type { LoadedSettings } from './settings.js';

/** The checks of the setup on this machine, before the service is reached: profile, base URL, API key, state dir. */

type Env = Record<string, string | undefined>;

/** The profile in use, where its name came from, and how much it holds. */
export function profileCheck(loaded: LoadedSettings, explicit: string | undefined, env: Env, name: NameSetting): Check {
  const { profile, store } = loaded;
  const from =
    explicit !== undefined
      ? `from ${name('profile')}`
      : env.LISTINGS_PROFILE
        ? 'from LISTINGS_PROFILE'
        : profile === DEFAULT_PROFILE
          ? 'the default profile'
          : 'made active with listings config use';
  const stored = Object.keys(store.values(profile)).length;
  const what = stored === 0 ? 'nothing stored in it: settings come from flags, the environment and defaults' : `${stored} ${stored === 1 ? 'setting' : 'settings'} stored`;
  return { name: 'profile', status: 'ok', message: `${profile} (${from}; ${what}) in ${store.path}` };
}

/** Where a setting came from, in words: `from --base-url`, `from the profile`... */
function sourceText(loaded: LoadedSettings, key: 'base_url' | 'api_key_env', name: NameSetting): string {
  switch (loaded.sources[key]) {
    case 'flag':
      return `from ${name(key)}`;
    case 'env':
      return `from ${OPTION_BY_KEY.get(key)?.env ?? 'the environment'}`;
    case 'profile':
      return 'from the profile';
    default:
      return 'built in';
  }
}

/** The base URL: set, a URL the client accepts, and not plain http across the network. */
export function baseUrlCheck(loaded: LoadedSettings, name: NameSetting): Check {
  const url = loaded.settings.base_url;
  if (url === undefined) {
    return {
      name: 'base URL',
      status: 'fail',
      kind: 'config',
      message: 'not set: the service address is not configured',
      fix: `listings init, or listings config set base_url https://..., or ${name('base_url')}, or LISTINGS_BASE_URL (listings sandbox runs one locally)`,
    };
  }
  try {
    const endpoint = listingsEndpoint(url, { allowInsecureHttp: loaded.allowInsecureHttp });
    const source = sourceText(loaded, 'base_url', name);
    const insecure = endpoint.origin.startsWith('http:') && !isLoopbackHost(new URL(endpoint.origin).hostname);
    return insecure
      ? { name: 'base URL', status: 'warn', message: `${url} (${source}): plain http to a host that is not loopback`, fix: 'use https: the key crosses the network in clear' }
      : { name: 'base URL', status: 'ok', message: `${url} (${source}): listings are sent to ${endpoint.origin}${endpoint.path}` };
  } catch (error) {
    const hint = error instanceof ListingsError ? error.wordedWith(name).hint : undefined;
    return { name: 'base URL', status: 'fail', kind: 'config', message: (error as Error).message, ...(hint === undefined ? {} : { fix: hint }) };
  }
}

/** The API key: from the variable api_key_env names (registered as a secret), else a raw key in the profile. */
export function keyCheck(loaded: LoadedSettings, env: Env, name: NameSetting): { check: Check; key: string | undefined } {
  const variable = loaded.settings.api_key_env;
  const named = loaded.sources.api_key_env === 'default' ? 'the default variable' : `named by api_key_env, ${sourceText(loaded, 'api_key_env', name)}`;
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    registerSecret(fromEnv);
    const fault = headerValueFault(fromEnv);
    if (fault !== undefined) return { check: { name: 'API key', status: 'fail', kind: 'config', message: `${variable} ${fault}`, fix: `set ${variable} to the key alone` }, key: undefined };
    return { check: { name: 'API key', status: 'ok', message: `${variable} is set (${named}); the key is never shown` }, key: fromEnv };
  }
  const stored = loaded.settings.api_key;
  if (stored !== undefined) {
    registerSecret(stored);
    const fault = headerValueFault(stored);
    if (fault !== undefined) {
      return { check: { name: 'API key', status: 'fail', kind: 'config', message: `the api_key of the profile ${fault}`, fix: `export ${variable}=<key>, then listings config unset api_key` }, key: undefined };
    }
    return {
      check: { name: 'API key', status: 'warn', message: `${variable} is not set; a raw key stored in the profile is used`, fix: `keep the key out of files: export ${variable}=<key>, then listings config unset api_key` },
      key: stored,
    };
  }
  return {
    check: { name: 'API key', status: 'fail', kind: 'config', message: `${variable} is not set (${named})`, fix: `export ${variable}=<key from the dashboard> (or name another variable: listings config set api_key_env NAME)` },
    key: undefined,
  };
}

/** `.listings` under the working directory, where runs keep their journal and state: probed with a file, left as found. */
export async function stateDirCheck(cwd: string, name: NameSetting): Promise<Check> {
  const dir = join(cwd, '.listings');
  let created = false;
  try {
    const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info !== undefined && !info.isDirectory()) {
      return { name: 'state dir', status: 'fail', kind: 'config', message: `${dir} is not a directory`, fix: `move it away: runs keep their resume journal and ${name('changedOnly')} state in .listings/` };
    }
    if (info === undefined) {
      await mkdir(dir, 0o700);
      created = true;
    }
    // A random name, created exclusively: a link planted at a predictable one would have it truncate another file.
    const probe = join(dir, `.doctor-${randomBytes(6).toString('hex')}`);
    await writeFile(probe, '', { flag: 'wx' });
    await rm(probe);
    return { name: 'state dir', status: 'ok', message: created ? `${dir} can be created (the first run will)` : `${dir} is writable` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      name: 'state dir',
      status: 'fail',
      kind: 'config',
      message: `cannot write in ${dir} (${code})`,
      fix: `run from a directory you can write to, or give runs ${name('journal')} and ${name('state')} paths elsewhere (or ${name('noJournal')})`,
    };
  } finally {
    if (created) await rmdir(dir).catch(() => undefined);
  }
}
