import { UsageError } from '../errors.js';
import type { PublishOptions } from './engine-types.js';

/**
 * The caller's callbacks, each wrapped so that one that throws is told to `threw` (which stops the run and ends
 * its iteration with a UsageError) rather than escaping into a timer or an answer's promise, where it would be an
 * unhandled rejection and the run would never end.
 */
export function guardCallbacks(options: PublishOptions, threw: (error: UsageError) => void): PublishOptions {
  const { onSettled, onEvent } = options;
  if (onSettled === undefined && onEvent === undefined) return options;
  const guarded = <T>(key: string, callback: (value: T) => void) => (value: T): void => {
    try {
      callback(value);
    } catch (cause) {
      threw(new UsageError((name) => `${name(key)} threw, so the run was stopped: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, setting: { key } }));
    }
  };
  return {
    ...options,
    ...(onSettled === undefined ? {} : { onSettled: guarded('onSettled', onSettled) }),
    ...(onEvent === undefined ? {} : { onEvent: guarded('onEvent', onEvent) }),
  };
}
