import { SHAPES, type Shape } from '../contract/shapes.js';
import { identifierProblem } from '../contract/identifier.js';

/**
 * The one table of settings. It drives the command line's flags (worded by src/cli/setting-flags.ts), the environment variables, the profile keys, their
 * validation, the built-in defaults and the README's table, so none of them can drift.
 */
export interface Settings {
  base_url?: string;
  /** Name of the environment variable that holds the API key. */
  api_key_env: string;
  /** A raw key stored in the profile (discouraged; the file is 0600 and `list` masks it). */
  api_key?: string;
  marketplace?: string;
  merchant_location_key?: string;
  fulfillment_policy_id?: string;
  payment_policy_id?: string;
  return_policy_id?: string;
  condition?: string;
  /** The address that relative image paths of a catalog are under (Magento's `/m/b/mb01.jpg`). */
  image_base_url?: string;
  shape: Shape;
  /** The workspace has Marketplace configurations saved on the server. */
  saved_defaults: boolean;
  /** A fixed number of requests in flight; unset, the limit is learned up to max_concurrency. */
  concurrency?: number;
  /** The ceiling of the learned limit; unset, 512, or on a service slower than 512 ms one per ms, up to 2048. */
  max_concurrency?: number;
}

export type SettingKey = keyof Settings;
export type SettingValue = string | number | boolean;

/** Where a resolved value came from, highest precedence first. */
export type SettingSource = 'flag' | 'env' | 'profile' | 'default';

export interface OptionSpec {
  key: SettingKey;
  /**
   * Given per run (the CLI's flag, named after the key: `--base-url <url>`): the name of the value it takes, or `true`
   * for an on/off switch. Absent for a setting kept only in the environment or the profile (a raw API key).
   */
  perRun?: string | true;
  env: string;
  description: string;
  default?: SettingValue;
  /** Whether the value is a secret: masked in `config list`. */
  secret?: boolean;
  /** Parse a string from argv, env or `config set`; throws an Error with a short reason on a bad value. */
  parse(raw: string): SettingValue;
}

function text(raw: string): string {
  const value = raw.trim();
  if (value === '') throw new Error('must not be empty');
  return value;
}

function pattern(re: RegExp, what: string) {
  return (raw: string): string => {
    const value = text(raw);
    if (!re.test(value)) throw new Error(`must be ${what}`);
    return value;
  };
}

export function parseBoolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['true', 'yes', '1', 'on'].includes(value)) return true;
  if (['false', 'no', '0', 'off'].includes(value)) return false;
  throw new Error('must be true or false');
}

export function parseInteger(min: number, max: number) {
  return (raw: string): number => {
    // Decimal digits only: `0x10`, `1e3` and `0b11` are not taken for 16, 1000 and 3.
    const value = /^\s*-?\d+\s*$/.test(raw) ? Number(raw.trim()) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) throw new Error(`must be a whole number from ${min} to ${max}`);
    return value;
  };
}

function parseUrl(raw: string): string {
  const value = text(raw);
  // The URL parser drops tabs and line breaks without a word, and a listing or a terminal would show them.
  const problem = identifierProblem(value);
  if (problem !== undefined) throw new Error(`${problem.split(';')[0]}; a URL cannot hold control characters, line breaks or direction controls`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('must be an absolute URL, e.g. https://api.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an http(s) URL');
  return value;
}

/** An http(s) address to put relative paths under: no query or fragment, which a path put after it would land in. */
function parseBaseUrl(raw: string): string {
  const value = parseUrl(raw);
  if (/[?#]/.test(value)) throw new Error('must not have a query (?) or a fragment (#): image paths are put after it');
  return value;
}

function parseShape(raw: string): Shape {
  const value = raw.trim().toLowerCase();
  if (!(SHAPES as readonly string[]).includes(value)) throw new Error(`must be one of ${SHAPES.join(', ')}`);
  return value as Shape;
}

/** An identifier (a location key, a policy id, a condition): the contract's rule, so a bad one is refused where it is set. */
function id(raw: string): string {
  const value = text(raw);
  const problem = identifierProblem(value);
  if (problem !== undefined) throw new Error(problem);
  return value;
}

const MARKETPLACE_ID = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** One marketplace id, e.g. `EBAY_GB` (a profile section's name); throws with a short reason otherwise. */
export function parseMarketplaceId(raw: string): string {
  const value = raw.trim();
  if (!MARKETPLACE_ID.test(value)) throw new Error('must be a marketplace id such as EBAY_US or ebay');
  return value;
}

/**
 * One marketplace, or several separated by commas (`EBAY_US,EBAY_GB`): every row without a marketplace of its own
 * is then published to each. Spaces around the commas are dropped, and so is a repeat.
 */
function parseMarketplaces(raw: string): string {
  const ids: string[] = [];
  for (const part of raw.split(',')) {
    const value = part.trim();
    if (!MARKETPLACE_ID.test(value)) throw new Error('must be a marketplace id such as EBAY_US or ebay, or several separated by commas (EBAY_US,EBAY_GB)');
    if (!ids.includes(value)) ids.push(value);
  }
  return ids.join(',');
}

/** The marketplaces of a `marketplace` setting (`EBAY_US,EBAY_GB` -> both); none when unset. */
export function splitMarketplaces(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(',').filter((id) => id !== '');
}

/** The settings a marketplace's section of a profile (or its environment variables) may give: its own defaults. */
export const PER_MARKETPLACE_KEYS = ['merchant_location_key', 'fulfillment_policy_id', 'payment_policy_id', 'return_policy_id', 'condition'] as const;
export type MarketplaceSettingKey = (typeof PER_MARKETPLACE_KEYS)[number];

export function isMarketplaceSettingKey(key: string): key is MarketplaceSettingKey {
  return (PER_MARKETPLACE_KEYS as readonly string[]).includes(key);
}

/** A marketplace's section name: its id in upper case (`ebay_gb` and `EBAY_GB` are one section). */
export function sectionName(marketplace: string): string {
  return marketplace.toUpperCase();
}

/** The environment variable of one marketplace's own value: `LISTINGS_EBAY_GB_FULFILLMENT_POLICY_ID`. */
export function marketplaceEnv(marketplace: string, key: MarketplaceSettingKey): string {
  return `LISTINGS_${sectionName(marketplace).replace(/-/g, '_')}_${key.toUpperCase()}`;
}

export const OPTIONS: readonly OptionSpec[] = [
  { key: 'base_url', perRun: 'url', env: 'LISTINGS_BASE_URL', description: 'base address of the service (a dedicated region may have its own)', parse: parseUrl },
  { key: 'api_key_env', perRun: 'name', env: 'LISTINGS_API_KEY_ENV', description: 'name of the environment variable holding the API key', default: 'LISTINGS_API_KEY', parse: pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name') },
  { key: 'api_key', env: 'LISTINGS_API_KEY', description: 'a raw API key kept in the profile (discouraged: prefer api_key_env)', secret: true, parse: text },
  { key: 'marketplace', perRun: 'id', env: 'LISTINGS_MARKETPLACE', description: 'target marketplace: EBAY_US (flat) or ebay (wrapped); several, comma-separated (EBAY_US,EBAY_GB), publish each row to each', parse: parseMarketplaces },
  { key: 'merchant_location_key', perRun: 'key', env: 'LISTINGS_MERCHANT_LOCATION_KEY', description: "key of the merchant's location", parse: id },
  { key: 'fulfillment_policy_id', perRun: 'id', env: 'LISTINGS_FULFILLMENT_POLICY_ID', description: 'fulfillment policy id', parse: id },
  { key: 'payment_policy_id', perRun: 'id', env: 'LISTINGS_PAYMENT_POLICY_ID', description: 'payment policy id', parse: id },
  { key: 'return_policy_id', perRun: 'id', env: 'LISTINGS_RETURN_POLICY_ID', description: 'return policy id', parse: id },
  { key: 'condition', perRun: 'condition', env: 'LISTINGS_CONDITION', description: 'item condition sent as overrides.condition, e.g. NEW', parse: id },
  { key: 'image_base_url', perRun: 'url', env: 'LISTINGS_IMAGE_BASE_URL', description: "address that relative image paths are under, e.g. https://shop.example.com/media/catalog/product for Magento's /m/b/mb01.jpg", parse: parseBaseUrl },
  { key: 'shape', perRun: 'shape', env: 'LISTINGS_SHAPE', description: 'request shape: flat or wrapped', default: 'flat', parse: parseShape },
  { key: 'saved_defaults', perRun: true, env: 'LISTINGS_SAVED_DEFAULTS', description: 'the workspace has Marketplace configurations saved: location key and policy ids may be omitted', default: false, parse: parseBoolean },
  { key: 'concurrency', perRun: 'n', env: 'LISTINGS_CONCURRENCY', description: 'a fixed number of requests in flight (unset: learned from the service, up to max_concurrency)', parse: parseInteger(1, 4096) },
  { key: 'max_concurrency', perRun: 'n', env: 'LISTINGS_MAX_CONCURRENCY', description: 'ceiling of the learned number of requests in flight (unset: 512, or on a service slower than 512 ms one per ms of its fastest answer, up to 2048)', parse: parseInteger(1, 4096) },
];

export const OPTION_BY_KEY: ReadonlyMap<string, OptionSpec> = new Map(OPTIONS.map((option) => [option.key, option]));

/** commander's camelCase attribute name for a flag: `--base-url <url>` -> `baseUrl`. */
export function attributeName(flag: string): string {
  const long = flag.split(/[ ,]+/).find((part) => part.startsWith('--')) ?? flag;
  return long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
