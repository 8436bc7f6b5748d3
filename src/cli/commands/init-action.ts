import { diagnoseService } from '../../client/diagnose.js';
import type { SettingKey } from '../../config/options.js';
import { resolveSettings } from '../../config/resolve.js';
import { ProfileStore } from '../../config/store.js';
import { UsageError } from '../../errors.js';
import { apiKeyHere, startingAnswers, unanswered, writeAnswers } from '../../setup/init-profile.js';
import { accept, acceptGiven, isAsked, QUESTIONS, shownAnswer, type AnswerContext, type Answers } from '../../setup/init-questions.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { flagValues } from '../settings.js';
import { printChecks } from './doctor-action.js';
import { checksFault } from '../../setup/diagnose-setup.js';
import { exitCodeOfFault } from '../../run/verdict.js';
import { cliName } from '../setting-flags.js';

/** The flags of `listings init` besides the settings. */
export interface InitFlags {
  yes?: boolean;
  /** False with --no-check. */
  check: boolean;
  timeout: number;
}

type Env = Record<string, string | undefined>;

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

/** Ask each question whose answer no flag gave, until the answer is accepted; Enter keeps the value shown. */
async function askAll(tty: Terminal, answers: Answers, fromFlag: (key: SettingKey) => boolean, context: AnswerContext): Promise<void> {
  for (const question of QUESTIONS) {
    if (!isAsked(question, answers)) continue;
    const given = answers[question.key];
    if (fromFlag(question.key) && given !== undefined) {
      answers[question.key] = acceptGiven(question, given, answers, context);
      err(paint.dim(`${question.prompt(answers)}: ${shownAnswer(answers[question.key])} (from ${cliName(question.key)})`));
      continue;
    }
    for (;;) {
      const current = answers[question.key];
      const typed = (await tty.ask(`${question.prompt(answers)}${current === undefined ? '' : ` [${shownAnswer(current)}]`}: `)).trim();
      const raw = typed === '' ? current : typed;
      if (raw === undefined) {
        err(paint.yellow('  an answer is needed'));
        continue;
      }
      try {
        answers[question.key] = accept(question, raw, answers, context);
        break;
      } catch (error) {
        err(paint.yellow(`  ${(error as Error).message}`));
      }
    }
  }
}

/** Without questions: every answer from the flags (or env, profile, default); all missing ones in one usage error. */
function checkAll(answers: Answers, flags: InitFlags, context: AnswerContext): void {
  const missing = unanswered(answers, context).map(cliName);
  if (missing.length > 0) {
    const why = flags.yes ? 'with --yes nothing is asked' : 'stdin is not a terminal, so nothing can be asked';
    const saved = missing.some((flag) => flag.endsWith('-policy-id') || flag === '--merchant-location-key') ? '; a workspace with Marketplace configurations saved needs no location key nor policy ids: add --saved-defaults' : '';
    throw new UsageError(`init: ${why}, and no answer was given for ${missing.join(', ')}`, {
      hint: `give ${missing.length === 1 ? 'it' : 'them'} as ${missing.length === 1 ? 'a flag' : 'flags'} (listings init --help shows examples), or run listings init in a terminal to be asked${saved}`,
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
  const answers = startingAnswers(resolved);
  const context: AnswerContext = { allowInsecureHttp: flags.allowInsecureHttp === true };
  const fromFlag = (key: SettingKey): boolean => resolved.sources[key] === 'flag';
  const interactive = flags.yes !== true && process.stdin.isTTY === true;

  if (interactive) {
    const tty = await terminal();
    try {
      err(paint.bold(`Setting up the profile ${profile} (${store.path}). Enter keeps the value in [brackets].`));
      await askAll(tty, answers, fromFlag, context);
      const answer = (await tty.ask(`Write the profile ${profile}? [Y/n]: `)).trim().toLowerCase();
      if (answer !== '' && !answer.startsWith('y')) {
        err('nothing written');
        return;
      }
    } finally {
      tty.close();
    }
  } else {
    checkAll(answers, flags, context);
  }

  const { written, removed, removedBecause } = await writeAnswers(store, profile, answers, resolved, before);
  err(`wrote the profile ${paint.bold(profile)} in ${store.path}:`);
  const values = store.values(profile);
  const width = Math.max(...written.map((key) => key.length));
  for (const key of written) err(`  ${key.padEnd(width)}  ${shownAnswer(values[key])}`);
  if (removed.length > 0) err(paint.dim(`  removed ${removed.join(', ')}: ${removedBecause}`));
  if (flags.yes === true && values.saved_defaults !== true && values.shape !== 'wrapped') {
    err(paint.dim('  a workspace with Marketplace configurations saved needs no location key nor policy ids: run init --yes again with --saved-defaults'));
  }

  const { keyEnv, key } = apiKeyHere(answers, env);
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
  const code = exitCodeOfFault(checksFault(checks));
  if (code !== EXIT.ok) {
    err(paint.red(`the profile is written, but the service cannot be used yet: fix the above, then run listings doctor${switchTo}`));
    throw new ExitError(code);
  }
  if (key === undefined) err(`next: export ${keyEnv}, then listings doctor${switchTo}`);
  else err(paint.green(`ready: try listings publish CATALOG${switchTo} --dry-run`));
}
