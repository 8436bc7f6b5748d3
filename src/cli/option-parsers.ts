import { InvalidArgumentError } from 'commander';
import { parseInteger } from '../config/options.js';
import { UsageError } from '../errors.js';

/** A commander parser of a whole number in [min, max], whose error commander prints beside the flag. */
export function whole(min: number, max: number): (raw: string) => number {
  const parse = parseInteger(min, max);
  return (raw: string): number => {
    try {
      return parse(raw);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

/** A commander parser of a rate in requests per second (> 0, at most a million). */
export function perSecond(raw: string): number {
  const value = Number(raw.trim());
  if (!/^\s*(\d+\.?\d*|\.\d+)\s*$/.test(raw) || !(value > 0) || value > 1_000_000) throw new InvalidArgumentError('must be a number of requests per second > 0');
  return value;
}

/** The `--timeout <ms>` of create, doctor and init: 100 ms to 10 minutes, its error a usage error naming the flag. */
export function timeoutMs(raw: string): number {
  try {
    return parseInteger(100, 600_000)(raw);
  } catch (error) {
    throw new UsageError(`--timeout: ${(error as Error).message}`);
  }
}
