import { ConfigError } from '../errors.js';
import type { PublishOptions } from './engine-types.js';

type Options = Record<string, unknown>;

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : Array.isArray(value) ? 'an array' : typeof value === 'object' && value !== null ? 'an object' : String(value);
}

function whole(o: Options, key: string, min: number): void {
  const value = o[key];
  if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)) {
    throw new ConfigError((name) => `${name(key)} must be a whole number >= ${min}, not ${shown(value)}`, { setting: { key, value: shown(value) } });
  }
}

function ofKind(o: Options, key: string, kind: string, fits: (value: unknown) => boolean): void {
  const value = o[key];
  if (value !== undefined && !fits(value)) throw new ConfigError((name) => `${name(key)} must be ${kind}, not ${shown(value)}`, { setting: { key } });
}

/**
 * The publish options as an untyped caller may pass them, checked before a row is read or sent: each wrong one a
 * ConfigError naming it, rather than a NaN taken for "unlimited" or a sender without a send failing every row.
 */
export function checkPublishOptions(options: unknown): asserts options is PublishOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new ConfigError(`the publish options must be an object, not ${shown(options)}`);
  const o = options as Options;
  if (o.dryRun !== true) {
    const { sender } = o;
    if (sender === undefined) throw new ConfigError((name) => `${name('sender')} is required unless ${name('dryRun')}`, { hint: 'e.g. a ListingsClient', setting: { key: 'sender' } });
    if (typeof sender !== 'object' || sender === null || typeof (sender as Options).postListingJson !== 'function') {
      throw new ConfigError((name) => `${name('sender')} must have a postListingJson method (a ListingsClient does), not ${shown(sender)}`, { setting: { key: 'sender' } });
    }
    for (const method of ['destroy', 'prepareConnections']) {
      const given = (sender as Options)[method];
      if (given !== undefined && typeof given !== 'function') {
        throw new ConfigError((name) => `${name('sender')}.${method}, when given, must be a method, not ${shown(given)}`, { setting: { key: 'sender' } });
      }
    }
  }
  whole(o, 'concurrency', 1);
  whole(o, 'maxConcurrency', 1);
  whole(o, 'giveUpAfterMs', 1);
  whole(o, 'maxErrors', 1);
  whole(o, 'reorderBuffer', 1);
  ofKind(o, 'rate', 'a number of requests per second > 0', (v) => typeof v === 'number' && v > 0 && Number.isFinite(v));
  for (const key of ['dryRun', 'live', 'ordered']) ofKind(o, key, 'true or false', (v) => typeof v === 'boolean');
  for (const key of ['stop', 'abandon']) ofKind(o, key, 'an AbortSignal', (v) => v instanceof AbortSignal);
  for (const key of ['onSettled', 'onEvent', 'retryOnly']) ofKind(o, key, 'a function', (v) => typeof v === 'function');
}

/** What publishRows reads: an async iterable (a sync one, such as an array, would be read as nothing by for await). */
export function checkRows(rows: unknown): void {
  if (typeof (rows as { [Symbol.asyncIterator]?: unknown } | null | undefined)?.[Symbol.asyncIterator] !== 'function') {
    throw new ConfigError((name) => `${name('rows')} must be an async iterable, not ${shown(rows)}`, { hint: 'e.g. an async generator; wrap an array as (async function* () { yield* rows; })()', setting: { key: 'rows' } });
  }
}
