/** The units a duration may be written in, and how many milliseconds each is. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A unit a duration is read or kept in. */
export type DurationUnit = keyof typeof UNIT_MS;

const DURATION = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?\s*$/;

/** Outside text quoted in an error, cut short: it says what was typed, never all of it. */
function quoted(raw: string): string {
  return `'${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}'`;
}

/**
 * `500ms`, `30s`, `2m`, `1h` (a decimal number with a unit) in milliseconds; a number alone is read in `bare`, the
 * unit the value was documented in before units were taken. Throws an Error with the reason otherwise.
 */
export function parseDuration(raw: string, bare: DurationUnit): number {
  const match = DURATION.exec(raw);
  if (match === null) throw new Error(`${quoted(raw)} is not a duration: use 500ms, 30s or 2m`);
  const unit = (match[2] ?? bare) as DurationUnit;
  return Math.round(Number(match[1]) * UNIT_MS[unit] * 1000) / 1000;
}

/** A duration as a person writes it, in the largest unit that holds it whole: 30000 -> `30s`, 120000 -> `2m`. */
export function formatDuration(ms: number): string {
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/** Milliseconds as a whole number of `unit`, or undefined when they are not whole. */
export function durationIn(ms: number, unit: DurationUnit): number | undefined {
  const value = ms / UNIT_MS[unit];
  return Number.isInteger(value) ? value : undefined;
}
