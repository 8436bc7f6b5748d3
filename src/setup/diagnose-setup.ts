import { diagnoseService, type Check } from '../client/diagnose.js';
import { libraryName, ListingsError, type NameSetting } from '../errors.js';
import { baseUrlCheck, keyCheck, profileCheck, stateDirCheck } from './setup-checks.js';
import { loadSettings, type LoadedSettings, type SettingsRequest } from './settings.js';

type Env = Record<string, string | undefined>;

/** What {@link diagnoseSetup} checks, and how. */
export interface SetupDiagnosisOptions {
  /** The settings as the command was given them. */
  request: SettingsRequest;
  /** Time limit of each network step, in ms. */
  timeoutMs: number;
  /** Where runs keep their journal and state (`.listings` under it). */
  cwd: string;
  env?: Env;
  /** How the texts name a setting: by its own name unless given; the CLI passes its flags (cliName). */
  name?: NameSetting;
}

/**
 * The whole setup, as `listings doctor` checks it: the profile, the base URL, the API key (never shown), then the
 * service (see diagnoseService) when the base URL can be used, and the state directory. Returns one Check a step, in
 * order; prints nothing. A configuration that cannot be read at all is a failed `profile` check.
 */
export async function diagnoseSetup(options: SetupDiagnosisOptions): Promise<Check[]> {
  const env = options.env ?? process.env;
  const name = options.name ?? libraryName;
  const checks: Check[] = [];
  let loaded: LoadedSettings | undefined;
  try {
    loaded = await loadSettings(options.request, env);
  } catch (error) {
    if (!(error instanceof ListingsError)) throw error;
    const { message, hint } = error.wordedWith(name);
    checks.push({ name: 'profile', status: 'fail', kind: 'config', message, ...(hint === undefined ? {} : { fix: hint }) });
  }
  if (loaded !== undefined) {
    checks.push(profileCheck(loaded, options.request.profile, env, name));
    const base = baseUrlCheck(loaded, name);
    const { check: key, key: apiKey } = keyCheck(loaded, env, name);
    checks.push(base, key);
    if (base.status !== 'fail' && loaded.settings.base_url !== undefined) {
      checks.push(
        ...(await diagnoseService({ baseUrl: loaded.settings.base_url, apiKey, apiKeyEnv: loaded.settings.api_key_env, allowInsecureHttp: loaded.allowInsecureHttp, timeoutMs: options.timeoutMs, env, name })),
      );
    }
  }
  checks.push(await stateDirCheck(options.cwd, name));
  return checks;
}

/** Whose fault a failed check is: the configuration's before the service's; undefined when none failed (warnings do not fail). */
export function checksFault(checks: readonly Check[]): 'config' | 'service' | undefined {
  if (checks.some((c) => c.status === 'fail' && c.kind === 'config')) return 'config';
  if (checks.some((c) => c.status === 'fail')) return 'service';
  return undefined;
}
