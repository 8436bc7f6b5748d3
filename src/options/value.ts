import { parseInteger } from '../config/options.js';
import { durationIn, formatDuration, parseDuration, type DurationUnit } from './duration.js';
import type { ValueSpec } from './spec.js';

type DurationSpec = Extract<ValueSpec, { kind: 'duration' }>;

/** A duration of the spec, as a whole number of its unit within its bounds; throws an Error with the reason. */
function duration(raw: string, spec: DurationSpec): number {
  const ms = parseDuration(raw, spec.bare);
  const [min, max] = [parseDuration(spec.min, spec.bare), parseDuration(spec.max, spec.bare)];
  if (ms < min || ms > max) throw new Error(`must be from ${formatDuration(min)} to ${formatDuration(max)}, got '${raw.trim()}'`);
  const value = durationIn(ms, spec.unit);
  if (value === undefined) throw new Error(`must be a whole number of ${UNIT_NAMES[spec.unit]}, got '${raw.trim()}'`);
  return value;
}

const UNIT_NAMES: Readonly<Record<DurationUnit, string>> = { ms: 'milliseconds', s: 'seconds', m: 'minutes', h: 'hours' };

/** A duration or a `MIN-MAX` range of two (`20-80`, `20ms-2s`), in the spec's unit. */
function durationRange(raw: string, spec: DurationSpec): number | { min: number; max: number } {
  const parts = raw.split('-');
  if (parts.length !== 2) return duration(raw, spec);
  const [min, max] = parts.map((part) => duration(part, spec)) as [number, number];
  if (max < min) throw new Error(`MIN must not be above MAX, got '${raw.trim()}'`);
  return { min, max };
}

function rate(raw: string): number {
  const value = Number(raw.trim());
  if (!/^\s*(\d+\.?\d*|\.\d+)\s*$/.test(raw) || !(value > 0) || value > 1_000_000) throw new Error('must be a number of requests per second > 0');
  return value;
}

function whole(raw: string, spec: Extract<ValueSpec, { kind: 'whole' }>): number {
  if (spec.all === true && raw.trim() === 'all') return Number.POSITIVE_INFINITY;
  try {
    return parseInteger(spec.min, spec.max)(raw);
  } catch (error) {
    const below = spec.belowMin !== undefined && /^\s*-?\d+\s*$/.test(raw) && Number(raw) < spec.min ? ` (${spec.belowMin})` : '';
    throw new Error(`${(error as Error).message}${spec.all === true ? ' or "all"' : ''}${below}`, { cause: error });
  }
}

/**
 * An option's value read from its text, as the command receives it (text and choices as they are: commander checks
 * the choices). Pure; throws an Error with a short reason, which the CLI prefixes with the flag.
 */
export function parseValue(spec: ValueSpec, raw: string): unknown {
  switch (spec.kind) {
    case 'whole':
      return whole(raw, spec);
    case 'rate':
      return rate(raw);
    case 'duration':
      return spec.range === true ? durationRange(raw, spec) : duration(raw, spec);
    case 'text':
    case 'choice':
      return raw;
  }
}

/** The words a person types for the value, shown in help: `<n>`, `<duration>`. */
export function placeholderOf(spec: ValueSpec): string {
  if (spec.kind !== 'duration') return spec.placeholder;
  return spec.range === true ? 'duration[-duration]' : 'duration';
}
