import { listingsEndpoint } from '../client/endpoint.js';
import { isFlatMarketplace, toWrappedMarketplace } from '../contract/marketplace.js';
import { OPTION_BY_KEY, type SettingKey, type SettingValue } from '../config/options.js';
import { ListingsError, UsageError } from '../errors.js';

/** The answers of `listings init`, by setting. */
export type Answers = Partial<Record<SettingKey, SettingValue>>;

/** What a question's check may depend on besides the answers. */
export interface AnswerContext {
  allowInsecureHttp: boolean;
}

/** One question of `listings init`: the setting it sets, and when it is asked. */
export interface Question {
  key: SettingKey;
  prompt: (answers: Answers) => string;
  /** Asked only when this holds for the answers so far (else the setting is left as it is). */
  when?: (answers: Answers) => boolean;
  /** A check beyond the setting's own parse, which may also normalise the value; throws with the reason. */
  check?: (value: SettingValue, answers: Answers, context: AnswerContext) => SettingValue;
}

/** The settings the saved Marketplace configurations (or the wrapped shape) make unused. */
export const IDS = ['merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id'] as const;
export const flat = (answers: Answers): boolean => answers.shape !== 'wrapped';
/** The location key and policy ids are sent: the flat shape without saved defaults. */
export const needsIds = (answers: Answers): boolean => flat(answers) && answers.saved_defaults !== true;

export const QUESTIONS: readonly Question[] = [
  {
    key: 'base_url',
    prompt: () => 'Base URL of the service (e.g. https://api.example.com)',
    check: (value, _answers, context) => {
      listingsEndpoint(String(value), { allowInsecureHttp: context.allowInsecureHttp });
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

/** Whether the question is asked, given the answers so far. */
export function isAsked(question: Question, answers: Answers): boolean {
  return question.when === undefined || question.when(answers);
}

/** The setting's parse, then the question's own check; throws an Error with the reason (`answer yes or no`). */
export function accept(question: Question, raw: SettingValue, answers: Answers, context: AnswerContext): SettingValue {
  const option = OPTION_BY_KEY.get(question.key);
  if (option === undefined) throw new Error(`unknown setting ${question.key}`);
  let text = String(raw);
  if (typeof raw === 'string' && question.key === 'saved_defaults') {
    text = ({ y: 'yes', n: 'no' } as Record<string, string>)[raw.trim().toLowerCase()] ?? raw;
    if (!/^(yes|no|true|false|1|0|on|off)$/i.test(text.trim())) throw new Error('answer yes or no');
  }
  const value = option.parse(text);
  return question.check === undefined ? value : question.check(value, answers, context);
}

/** An answer given beforehand (not typed at the question): accepted, or a UsageError naming the setting. */
export function acceptGiven(question: Question, value: SettingValue, answers: Answers, context: AnswerContext): SettingValue {
  try {
    return accept(question, value, answers, context);
  } catch (error) {
    if (error instanceof ListingsError) throw error;
    const reason = (error as Error).message;
    throw new UsageError((name) => `${name(question.key)}: ${reason}`, { setting: { key: question.key } });
  }
}

/** An answer as shown: `yes`/`no` for a boolean, nothing for none. */
export function shownAnswer(value: SettingValue | undefined): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value === undefined ? '' : String(value);
}
