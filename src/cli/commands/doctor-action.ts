import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { diagnoseService, type Check } from '../../client/diagnose.js';
import { isLoopbackHost, listingsEndpoint } from '../../client/endpoint.js';
import { OPTION_BY_KEY } from '../../config/options.js';
import { DEFAULT_PROFILE } from '../../config/store.js';
import { ListingsError } from '../../errors.js';
import { registerSecret } from '../../secrets.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint, paintOut } from '../output.js';
import { loadSettings, type LoadedSettings } from '../settings.js';
import { cliName, settingFlagName } from '../setting-flags.js';

/** The flags of `listings doctor`. */
export interface DoctorFlags {
  timeout: number;
  json?: boolean;
}

type Env = Record<string, string | undefined>;

const SYMBOL: Record<Check['status'], string> = { ok: paintOut.green('✔'), fail: paintOut.red('✖'), warn: paintOut.yellow('!'), skip: paintOut.dim('-') };
const NAME_WIDTH = 9;

/** One line per check, and under a failure or a warning what to do about it. */
export function printChecks(checks: readonly Check[]): void {
  for (const check of checks) {
    const message = check.status === 'skip' ? paintOut.dim(check.message) : check.message;
    out(`${SYMBOL[check.status]} ${check.name.padEnd(NAME_WIDTH)} ${message}`);
    if (check.fix !== undefined && (check.status === 'fail' || check.status === 'warn')) out(`  ${' '.repeat(NAME_WIDTH)} ${paintOut.dim('fix:')} ${check.fix}`);
  }
}

/** 2 when a failure is the configuration's, else 3 when one is the service's, else 0: warnings do not fail. */
export function exitCodeOf(checks: readonly Check[]): number {
  if (checks.some((c) => c.status === 'fail' && c.kind === 'config')) return EXIT.usage;
  if (checks.some((c) => c.status === 'fail')) return EXIT.service;
  return EXIT.ok;
}

function profileCheck(loaded: LoadedSettings, explicit: string | undefined, env: Env): Check {
  const { profile, store } = loaded;
  const from =
    explicit !== undefined
      ? 'from --profile'
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
function sourceText(loaded: LoadedSettings, key: 'base_url' | 'api_key_env'): string {
  const option = OPTION_BY_KEY.get(key);
  switch (loaded.sources[key]) {
    case 'flag':
      return `from ${(option === undefined ? undefined : settingFlagName(option)) ?? 'a flag'}`;
    case 'env':
      return `from ${option?.env ?? 'the environment'}`;
    case 'profile':
      return 'from the profile';
    default:
      return 'built in';
  }
}

function baseUrlCheck(loaded: LoadedSettings): Check {
  const url = loaded.settings.base_url;
  if (url === undefined) {
    return {
      name: 'base URL',
      status: 'fail',
      kind: 'config',
      message: 'not set: the service address is not configured',
      fix: 'listings init, or listings config set base_url https://..., or --base-url, or LISTINGS_BASE_URL (listings sandbox runs one locally)',
    };
  }
  try {
    const endpoint = listingsEndpoint(url, { allowInsecureHttp: loaded.allowInsecureHttp });
    const source = sourceText(loaded, 'base_url');
    const insecure = endpoint.origin.startsWith('http:') && !isLoopbackHost(new URL(endpoint.origin).hostname);
    return insecure
      ? { name: 'base URL', status: 'warn', message: `${url} (${source}): plain http to a host that is not loopback`, fix: 'use https: the key crosses the network in clear' }
      : { name: 'base URL', status: 'ok', message: `${url} (${source}): listings are sent to ${endpoint.origin}${endpoint.path}` };
  } catch (error) {
    const hint = error instanceof ListingsError ? error.wordedWith(cliName).hint : undefined;
    return { name: 'base URL', status: 'fail', kind: 'config', message: (error as Error).message, ...(hint === undefined ? {} : { fix: hint }) };
  }
}

function keyCheck(loaded: LoadedSettings, env: Env): { check: Check; key: string | undefined } {
  const name = loaded.settings.api_key_env;
  const named = loaded.sources.api_key_env === 'default' ? 'the default variable' : `named by api_key_env, ${sourceText(loaded, 'api_key_env')}`;
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    registerSecret(fromEnv);
    return { check: { name: 'API key', status: 'ok', message: `${name} is set (${named}); the key is never shown` }, key: fromEnv };
  }
  const stored = loaded.settings.api_key;
  if (stored !== undefined) {
    registerSecret(stored);
    return {
      check: { name: 'API key', status: 'warn', message: `${name} is not set; a raw key stored in the profile is used`, fix: `keep the key out of files: export ${name}=<key>, then listings config unset api_key` },
      key: stored,
    };
  }
  return {
    check: { name: 'API key', status: 'fail', kind: 'config', message: `${name} is not set (${named})`, fix: `export ${name}=<key from the dashboard> (or name another variable: listings config set api_key_env NAME)` },
    key: undefined,
  };
}

/** `.listings` under the working directory, where runs keep their journal and state: probed with a file, left as found. */
export async function stateDirCheck(cwd: string): Promise<Check> {
  const dir = join(cwd, '.listings');
  let created = false;
  try {
    const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info !== undefined && !info.isDirectory()) {
      return { name: 'state dir', status: 'fail', kind: 'config', message: `${dir} is not a directory`, fix: 'move it away: runs keep their resume journal and --changed-only state in .listings/' };
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
      fix: 'run from a directory you can write to, or give runs --journal and --state paths elsewhere (or --no-journal)',
    };
  } finally {
    if (created) await rmdir(dir).catch(() => undefined);
  }
}

export async function runDoctor(flags: DoctorFlags & Record<string, unknown>, env: Env = process.env): Promise<void> {
  const checks: Check[] = [];
  let loaded: LoadedSettings | undefined;
  try {
    loaded = await loadSettings(flags, env);
  } catch (error) {
    if (!(error instanceof ListingsError)) throw error;
    checks.push({ name: 'profile', status: 'fail', kind: 'config', message: error.message, ...(error.hint === undefined ? {} : { fix: error.hint }) });
  }
  if (loaded !== undefined) {
    checks.push(profileCheck(loaded, typeof flags.profile === 'string' ? flags.profile : undefined, env));
    const base = baseUrlCheck(loaded);
    const { check: key, key: apiKey } = keyCheck(loaded, env);
    checks.push(base, key);
    if (base.status !== 'fail' && loaded.settings.base_url !== undefined) {
      checks.push(
        ...(await diagnoseService({ baseUrl: loaded.settings.base_url, apiKey, apiKeyEnv: loaded.settings.api_key_env, allowInsecureHttp: loaded.allowInsecureHttp, timeoutMs: flags.timeout, env, name: cliName })),
      );
    }
  }
  checks.push(await stateDirCheck(process.cwd()));
  const code = exitCodeOf(checks);
  if (flags.json) {
    const shown = checks.map(({ name, status, message, fix }) => ({ name, status, message, fix: fix ?? null }));
    out(JSON.stringify({ ok: code === EXIT.ok, exit_code: code, checks: shown }));
  } else {
    printChecks(checks);
    const failed = checks.filter((c) => c.status === 'fail').length;
    const warned = checks.filter((c) => c.status === 'warn').length;
    const warnings = warned === 0 ? '' : `, ${warned} ${warned === 1 ? 'warning' : 'warnings'}`;
    if (failed === 0) err(paint.green(`all checks passed${warnings}`));
    else err(paint.red(`${failed} ${failed === 1 ? 'check' : 'checks'} failed${warnings}: exit ${code} (${code === EXIT.usage ? 'the configuration' : 'the service'})`));
  }
  if (code !== EXIT.ok) throw new ExitError(code);
}
