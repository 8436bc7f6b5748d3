import type { SettingKey, SettingValue } from '../config/options.js';
import type { ResolvedSettings } from '../config/resolve.js';
import type { ProfileStore } from '../config/store.js';
import { registerSecret } from '../secrets.js';
import { acceptGiven, flat, IDS, isAsked, needsIds, QUESTIONS, type AnswerContext, type Answers } from './init-questions.js';

/** The profile `listings init` writes: its answers to start from, the check without questions, and the writing. */

type Env = Record<string, string | undefined>;

/** The answers to start from: the settings in effect for the profile being written. */
export function startingAnswers(resolved: ResolvedSettings): Answers {
  const answers: Answers = {};
  for (const question of QUESTIONS) {
    const value = resolved.values[question.key];
    if (value !== undefined) answers[question.key] = value;
  }
  return answers;
}

/**
 * Without questions: each answer already there is accepted (normalised in `answers`; a UsageError naming the
 * setting when it cannot be); returns the settings asked for that have no answer, in the order of the questions.
 */
export function unanswered(answers: Answers, context: AnswerContext): SettingKey[] {
  const missing: SettingKey[] = [];
  for (const question of QUESTIONS) {
    if (!isAsked(question, answers)) continue;
    const value = answers[question.key];
    if (value === undefined) missing.push(question.key);
    else answers[question.key] = acceptGiven(question, value, answers, context);
  }
  return missing;
}

/** What was written in the profile, what was removed from it and why. */
export interface WrittenProfile {
  written: SettingKey[];
  removed: SettingKey[];
  /** Why the removed settings are not needed. */
  removedBecause: string;
}

/**
 * Writes the answers in the profile: every question asked, and whatever was given for the run (a condition, say);
 * the location key and policy ids are removed when saved defaults or the wrapped shape make them unused, unless
 * given. `before` is the profile as it was read.
 */
export async function writeAnswers(store: ProfileStore, profile: string, answers: Answers, resolved: ResolvedSettings, before: Partial<Record<SettingKey, SettingValue>>): Promise<WrittenProfile> {
  const written: SettingKey[] = [];
  for (const question of QUESTIONS) {
    if (isAsked(question, answers) && answers[question.key] !== undefined) written.push(question.key);
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
  return { written, removed, removedBecause: flat(answers) ? 'the saved Marketplace configurations apply' : 'the wrapped shape sends none' };
}

/** The variable the answers name for the API key, and the key in it here (registered as a secret), if set. */
export function apiKeyHere(answers: Answers, env: Env): { keyEnv: string; key: string | undefined } {
  const keyEnv = String(answers.api_key_env ?? 'LISTINGS_API_KEY');
  const key = env[keyEnv]?.trim() ? env[keyEnv] : undefined;
  registerSecret(key);
  return { keyEnv, key };
}
