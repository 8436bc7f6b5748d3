import { ConfigError, UsageError } from '../errors.js';
import { didYouMean } from '../did-you-mean.js';

/** Options of a ListingsClient. */
export interface ListingsClientOptions {
  /** The service's base address; `/v1/listings` is appended (a path prefix is kept). */
  baseUrl: string;
  /** The workspace API key, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Time limit for the answer's headers, and between chunks of its body, in ms. Default 30,000. */
  timeoutMs?: number;
  /** Time limit for opening a connection (TCP and TLS), in ms. Default 10,000. */
  connectTimeoutMs?: number;
  /** Keep-alive connections to the service. Default 16. */
  connections?: number;
  /** Allow plain http to a host that is not loopback. Default false. */
  allowInsecureHttp?: boolean;
  /** Replaces the `User-Agent` header. */
  userAgent?: string;
  /**
   * The proxy to go through: a URL (`http://user:password@proxy:3128`), or false for none. Default: from
   * `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (and their lowercase forms), as undici's EnvHttpProxyAgent reads them.
   */
  proxy?: string | false;
}

/** Options of one request. */
export interface RequestOptions {
  /** Sent as `Idempotency-Key`, so a repeat cannot create a second listing. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /**
   * Called once the request is written to a connection, after any wait for one: where the service's time begins
   * (the batch engine measures latency from there).
   */
  onWritten?: () => void;
}

// The longest delay a Node timer keeps: a longer one fires at once.
const MAX_MS = 2_147_483_647;
const MAX_CONNECTIONS = 65_536;
const CLIENT_KEYS = ['baseUrl', 'apiKey', 'timeoutMs', 'connectTimeoutMs', 'connections', 'allowInsecureHttp', 'userAgent', 'proxy'] as const;
// What an HTTP header value may hold (RFC 9110 field-value): no CR, LF or other control character.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

type Options = Record<string, unknown>;

/** Reads each option once: a getter that throws is the caller's error, named by its key. */
function readOptions(options: unknown, keys: readonly string[], what: string): Options {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError(`${what} takes an options object, not ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  const read: Options = {};
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      const near = didYouMean(key, keys);
      throw new ConfigError(`${what} has no option ${JSON.stringify(key)}`, { hint: near === undefined ? `its options: ${keys.join(', ')}` : `did you mean ${near}?`, setting: { key } });
    }
  }
  for (const key of keys) {
    try {
      read[key] = (options as Options)[key];
    } catch (cause) {
      throw new ConfigError(`${what}: reading the option ${key} threw`, { cause, setting: { key } });
    }
  }
  return read;
}

function wholeMs(value: unknown, key: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_MS) {
    throw new ConfigError((name) => `${name(key)} must be a whole number of ms from 1 to ${MAX_MS}, not ${shown(value)}`, { setting: { key, value: shown(value) } });
  }
  return value;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : Array.isArray(value) ? 'an array' : typeof value === 'object' && value !== null ? 'an object' : String(value);
}

/**
 * The options of a ListingsClient as a JavaScript caller may pass them, checked before any connection is opened:
 * each wrong one a ConfigError naming it. The API key is never part of a message.
 */
export function checkClientOptions(options: unknown): ListingsClientOptions {
  const o = readOptions(options, CLIENT_KEYS, 'ListingsClient');
  const baseUrl = o.baseUrl instanceof URL ? o.baseUrl.href : o.baseUrl;
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new ConfigError((name) => `${name('baseUrl')} must be the service's URL as a string, not ${shown(baseUrl)}`, { hint: 'e.g. https://api.example.com', setting: { key: 'baseUrl' } });
  }
  const { apiKey } = o;
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new ConfigError((name) => `${name('apiKey')} must be a non-empty string, not ${typeof apiKey === 'string' ? 'empty' : apiKey === null ? 'null' : `a value of type ${typeof apiKey}`}`, { setting: { key: 'apiKey' } });
  }
  if (!HEADER_VALUE.test(apiKey)) {
    throw new ConfigError((name) => `${name('apiKey')} holds a line break or another control character, which cannot be sent in a header`, { hint: 'check how the key was read: a trailing newline from a file is a common cause', setting: { key: 'apiKey' } });
  }
  const connections = o.connections;
  if (connections !== undefined && (typeof connections !== 'number' || !Number.isInteger(connections) || connections < 1 || connections > MAX_CONNECTIONS)) {
    throw new ConfigError((name) => `${name('connections')} must be a whole number from 1 to ${MAX_CONNECTIONS}, not ${shown(connections)}`, { setting: { key: 'connections', value: shown(connections) } });
  }
  const { allowInsecureHttp, userAgent, proxy } = o;
  if (allowInsecureHttp !== undefined && typeof allowInsecureHttp !== 'boolean') {
    throw new ConfigError((name) => `${name('allowInsecureHttp')} must be true or false, not ${shown(allowInsecureHttp)}`, { setting: { key: 'allowInsecureHttp' } });
  }
  if (userAgent !== undefined && (typeof userAgent !== 'string' || !HEADER_VALUE.test(userAgent))) {
    throw new ConfigError((name) => `${name('userAgent')} must be a string without line breaks or control characters, not ${shown(userAgent)}`, { setting: { key: 'userAgent' } });
  }
  if (proxy !== undefined && proxy !== false && typeof proxy !== 'string') {
    throw new ConfigError((name) => `${name('proxy')} must be a proxy URL as a string, or false for none, not ${shown(proxy)}`, { setting: { key: 'proxy' } });
  }
  const timeoutMs = wholeMs(o.timeoutMs, 'timeoutMs');
  const connectTimeoutMs = wholeMs(o.connectTimeoutMs, 'connectTimeoutMs');
  return {
    baseUrl,
    apiKey,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
    ...(connections === undefined ? {} : { connections }),
    ...(allowInsecureHttp === undefined ? {} : { allowInsecureHttp }),
    ...(userAgent === undefined ? {} : { userAgent }),
    ...(proxy === undefined ? {} : { proxy }),
  };
}

/** The options of one request, checked before it is sent: a wrong one is the caller's error (UsageError). */
export function checkRequestOptions(options: unknown): RequestOptions {
  if (options === undefined) return {};
  const o = readOptions(options, ['idempotencyKey', 'signal', 'onWritten'], 'createListing');
  const { idempotencyKey, signal, onWritten } = o;
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey === '' || !HEADER_VALUE.test(idempotencyKey))) {
    throw new UsageError((name) => `${name('idempotencyKey')} must be a non-empty string without line breaks or control characters, not ${shown(idempotencyKey)}`, { setting: { key: 'idempotencyKey' } });
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new UsageError((name) => `${name('signal')} must be an AbortSignal, not ${shown(signal)}`, { setting: { key: 'signal' } });
  }
  if (onWritten !== undefined && typeof onWritten !== 'function') {
    throw new UsageError((name) => `${name('onWritten')} must be a function, not ${shown(onWritten)}`, { setting: { key: 'onWritten' } });
  }
  return {
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(signal === undefined ? {} : { signal }),
    ...(onWritten === undefined ? {} : { onWritten: onWritten as () => void }),
  };
}
