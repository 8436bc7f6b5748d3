import { diagnoseService } from '../../client/diagnose.js';
import { listingsEndpoint } from '../../client/endpoint.js';
import { isFlatMarketplace, toWrappedMarketplace } from '../../contract/marketplace.js';
import { OPTION_BY_KEY, type SettingKey, type SettingValue } from '../../config/options.js';
import { resolveSettings } from '../../config/resolve.js';
import { ProfileStore } from '../../config/store.js';
import { ListingsError, UsageError } from '../../errors.js';
import { registerSecret } from '../../secrets.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { flagValues } from '../settings.js';
import { exitCodeOf, printChecks } from './doctor-action.js';
import { cliName, settingFlagName } from '../setting-flags.js';

/** The flags of `listings init` besides the settings. */
export interface InitFlags {
  yes?: boolean;
  /** False with --no-check. */
  check: boolean;
  timeout: number;
}

type Env = Record<string, string | undefined>;
type Answers = Partial<Record<SettingKey, SettingValue>>;

/** One question of `listings init`: the setting it sets, and when it is asked. */
interface Question {
  key: SettingKey;
  prompt: (answers: Answers) => string;
  /** Asked only when this holds for the answers so far (else the setting is left as it is). */
  when?: (answers: Answers) => boolean;
  /** A check beyond the setting's own parse, which may also normalise the value; throws with the reason. */
  check?: (value: SettingValue, answers: Answers, flags: InitFlags & Record<string, unknown>) => SettingValue;
}

const IDS = ['merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id'] as const;
const flat = (answers: Answers): boolean => answers.shape !== 'wrapped';
const needsIds = (answers: Answers): boolean => flat(answers) && answers.saved_defaults !== true;

const QUESTIONS: readonly Question[] = [
  {
    key: 'base_url',
    prompt: () => 'Base URL of the service (e.g. https://api.example.com)',
    check: (value, _answers, flags) => {
      listingsEndpoint(String(value), { allowInsecureHttp: flags.allowInsecureHttp === true });
      return value;
    },
  },
  { key: 'api_key_env', prompt: () => 'Environment variable that holds the API key' },
  { key: 'shape', prompt: () => 'Request shape: flat (EBAY_US, with policy ids) or wrapped (ebay, sku and title)' },
  {
    key: 'marketplace',
    prompt: (answers) => `Marketplace (e.g. ${flat(answers) ? 'EBAY_US' : 'ebay'})`,
    check: (value, answers) => {
      const text = String(value);
      if (flat(answers)) {
        if (isFlatMarketplace(text.toUpperCase())) return text.toUpperCase();
        throw new Error('the flat shape needs the upper-case form with a region, e.g. EBAY_US');
      }
      const wrapped = toWrappedMarketplace(text) ?? toWrappedMarketplace(text.toLowerCase());
      if (wrapped === undefined) throw new Error('the wrapped shape needs the lower-case form without a region, e.g. ebay');
      return wrapped;
    },
  },
  { key: 'saved_defaults', prompt: () => 'Are the location key and policy ids saved in the dashboard (Marketplace configurations)? (yes/no)', when: flat },
  { key: 'merchant_location_key', prompt: () => "Key of the merchant's location", when: needsIds },
  { key: 'fulfillment_policy_id', prompt: () => 'Fulfillment policy id', when: needsIds },
  { key: 'payment_policy_id', prompt: () => 'Payment policy id', when: needsIds },
  { key: 'return_policy_id', prompt: () => 'Return policy id', when: needsIds },
];

function flagOf(key: SettingKey): string {
  const option = OPTION_BY_KEY.get(key);
  return (option === undefined ? undefined : settingFlagName(option)) ?? key;
}

/** The setting's parse, then the question's own check; throws an Error with the reason. */
function accept(question: Question, raw: SettingValue, answers: Answers, flags: InitFlags & Record<string, unknown>): SettingValue {
  const option = OPTION_BY_KEY.get(question.key);
  if (option === undefined) throw new Error(`unknown setting ${question.key}`);
  let text = String(raw);
  if (typeof raw === 'string' && question.key === 'saved_defaults') {
    text = ({ y: 'yes', n: 'no' } as Record<string, string>)[raw.trim().toLowerCase()] ?? raw;
    if (!/^(yes|no|true|false|1|0|on|off)$/i.test(text.trim())) throw new Error('answer yes or no');
  }
  const value = option.parse(text);
  return question.check === undefined ? value : question.check(value, answers, flags);
}

/** Questions on the terminal; Ctrl-C, or the end of the input, cancels with nothing written (exit 130). */
async function terminal() {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const cancel = new AbortController();
  // Lines typed (or pasted) ahead of their question: readline hands them out as 'line' events, not as answers.
  const ahead: string[] = [];
  let closed = false;
  rl.on('line', (line) => ahead.push(line));
  rl.on('SIGINT', () => cancel.abort());
  rl.on('close', () => {
    closed = true;
    cancel.abort();
  });
  const cancelled = (): ExitError => {
    err('');
    err('init cancelled: nothing written');
    return new ExitError(EXIT.interrupted);
  };
  return {
    async ask(text: string): Promise<string> {
      const early = ahead.shift();
      if (early !== undefined) {
        process.stderr.write(`${text}${early}\n`);
        return early;
      }
      if (closed || cancel.signal.aborted) throw cancelled();
      try {
        return await rl.question(text, { signal: cancel.signal });
      } catch (error) {
        if (!cancel.signal.aborted) throw error;
        throw cancelled();
      }
    },
    close: () => rl.close(),
  };
}

type Terminal = Awaited<ReturnType<typeof terminal>>;

function shown(value: SettingValue | undefined): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value === undefined ? '' : String(value);
}

/** Ask each question whose answer no flag gave, until the answer is accepted; Enter keeps the value shown. */
async function askAll(tty: Terminal, answers: Answers, fromFlag: (key: SettingKey) => boolean, flags: InitFlags & Record<string, unknown>): Promise<void> {
  for (const question of QUESTIONS) {
    if (question.when !== undefined && !question.when(answers)) continue;
    const given = answers[question.key];
    if (fromFlag(question.key) && given !== undefined) {
      try {
        answers[question.key] = accept(question, given, answers, flags);
      } catch (error) {
        if (error instanceof ListingsError) throw error;
        throw new UsageError(`${flagOf(question.key)}: ${(error as Error).message}`);
      }
      err(paint.dim(`${question.prompt(answers)}: ${shown(answers[question.key])} (from ${flagOf(question.key)})`));
      continue;
    }
    for (;;) {
      const current = answers[question.key];
      const typed = (await tty.ask(`${question.prompt(answers)}${current === undefined ? '' : ` [${shown(current)}]`}: `)).trim();
      const raw = typed === '' ? current : typed;
      if (raw === undefined) {
        err(paint.yellow('  an answer is needed'));
        continue;
      }
      try {
        answers[question.key] = accept(question, raw, answers, flags);
        break;
      } catch (error) {
        err(paint.yellow(`  ${(error as Error).message}`));
      }
    }
  }
}

/** Without questions: every answer from the flags (or env, profile, default); all missing ones in one usage error. */
function checkAll(answers: Answers, flags: InitFlags & Record<string, unknown>): void {
  const missing: string[] = [];
  for (const question of QUESTIONS) {
    if (question.when !== undefined && !question.when(answers)) continue;
    const value = answers[question.key];
    if (value === undefined) {
      missing.push(flagOf(question.key));
      continue;
    }
    try {
      answers[question.key] = accept(question, value, answers, flags);
    } catch (error) {
      if (error instanceof ListingsError) throw error;
      throw new UsageError(`${flagOf(question.key)}: ${(error as Error).message}`);
    }
  }
  if (missing.length > 0) {
    const why = flags.yes ? 'with --yes nothing is asked' : 'stdin is not a terminal, so nothing can be asked';
    throw new UsageError(`init: ${why}, and no answer was given for ${missing.join(', ')}`, {
      hint: `give ${missing.length === 1 ? 'it' : 'them'} as ${missing.length === 1 ? 'a flag' : 'flags'} (listings init --help shows examples), or run listings init in a terminal to be asked`,
    });
  }
}

/**
 * `listings init`: the answers start from the settings in effect for the profile being written (flag > env >
 * profile > default); in a terminal each one no flag gave is asked, with that as the default. Then the profile is
 * written (the location key and policy ids removed when saved defaults or the wrapped shape make them unused,
 * unless a flag gives them), and the base URL checked as `listings doctor` does.
 */
export async function runInit(flags: InitFlags & Record<string, unknown>, env: Env = process.env): Promise<void> {
  const store = await ProfileStore.open(env);
  const profile = store.activeProfile(typeof flags.profile === 'string' ? flags.profile : undefined, env);
  const before = store.values(profile);
  const resolved = resolveSettings({ flags: flagValues(flags), env, profile: before });
  const answers: Answers = {};
  for (const question of QUESTIONS) {
    const value = resolved.values[question.key];
    if (value !== undefined) answers[question.key] = value;
  }
  const fromFlag = (key: SettingKey): boolean => resolved.sources[key] === 'flag';
  const interactive = flags.yes !== true && process.stdin.isTTY === true;

  if (interactive) {
    const tty = await terminal();
    try {
      err(paint.bold(`Setting up the profile ${profile} (${store.path}). Enter keeps the value in [brackets].`));
      await askAll(tty, answers, fromFlag, flags);
      const answer = (await tty.ask(`Write the profile ${profile}? [Y/n]: `)).trim().toLowerCase();
      if (answer !== '' && !answer.startsWith('y')) {
        err('nothing written');
        return;
      }
    } finally {
      tty.close();
    }
  } else {
    checkAll(answers, flags);
  }

  // What is written: every question asked, and whatever a flag gave (--condition, say).
  const written: SettingKey[] = [];
  for (const question of QUESTIONS) {
    if ((question.when === undefined || question.when(answers)) && answers[question.key] !== undefined) written.push(question.key);
  }
  for (const [key, source] of Object.entries(resolved.sources) as [SettingKey, string][]) {
    if (source === 'flag' && !written.includes(key)) written.push(key);
  }
  const removed = needsIds(answers) ? [] : IDS.filter((key) => before[key] !== undefined && !written.includes(key));
  for (const key of written) {
    const value = answers[key] ?? resolved.values[key];
    if (value !== undefined) await store.set(profile, key, value);
  }
  for (const key of removed) await store.unset(profile, key);

  err(`wrote the profile ${paint.bold(profile)} in ${store.path}:`);
  const values = store.values(profile);
  const width = Math.max(...written.map((key) => key.length));
  for (const key of written) err(`  ${key.padEnd(width)}  ${shown(values[key])}`);
  if (removed.length > 0) err(paint.dim(`  removed ${removed.join(', ')}: ${flat(answers) ? 'the saved Marketplace configurations apply' : 'the wrapped shape sends none'}`));

  const keyEnv = String(answers.api_key_env ?? 'LISTINGS_API_KEY');
  const key = env[keyEnv]?.trim() ? env[keyEnv] : undefined;
  registerSecret(key);
  if (key === undefined) err(paint.yellow(`! ${keyEnv} is not set here: export ${keyEnv}=<key from the dashboard> before publishing`));
  const active = profile === store.activeProfile(undefined, env);
  if (!active) err(`${profile} is not the active profile: pass --profile ${profile} to commands, or make it the active one with listings config use ${profile}`);
  const switchTo = active ? '' : ` --profile ${profile}`;

  if (flags.check === false) {
    err(`next: listings doctor${switchTo}`);
    return;
  }
  err('checking the base URL:');
  const checks = await diagnoseService({ baseUrl: String(answers.base_url), apiKey: key, apiKeyEnv: keyEnv, allowInsecureHttp: flags.allowInsecureHttp === true, timeoutMs: flags.timeout, env, name: cliName });
  printChecks(checks);
  const code = exitCodeOf(checks);
  if (code !== EXIT.ok) {
    err(paint.red(`the profile is written, but the service cannot be used yet: fix the above, then run listings doctor${switchTo}`));
    throw new ExitError(code);
  }
  if (key === undefined) err(`next: export ${keyEnv}, then listings doctor${switchTo}`);
  else err(paint.green(`ready: try listings publish CATALOG${switchTo} --dry-run`));
}
