import { UsageError } from '../errors.js';
import { MAX_JSON_DEPTH } from '../json-text.js';

/**
 * Refuses a `createListing` request that JSON would send otherwise than it was given (untyped JavaScript reaches the
 * library too): JSON.stringify writes NaN and the infinities as `null`, an array's `undefined`, function or symbol as
 * `null`, drops a property whose value is a function or symbol, and throws its own TypeError for a BigInt or a cycle.
 * Each is a UsageError naming the place (`request.overrides.price`); a property that is `undefined` is left out, as
 * an absent field is. A value with a `toJSON` (a Date, a JsonNumber) says itself how it is written. Walked without
 * recursion and at most {@link MAX_JSON_DEPTH} levels deep, so a deep or circular request is refused, never a stack
 * overflow.
 */
export function checkRequestJson(request: unknown): void {
  const problem = requestJsonProblem(request);
  if (problem === undefined) return;
  // The place is the caller's keys: cut short, so a key of a megabyte does not make a message of one.
  const place = problem.place.length > 200 ? `${problem.place.slice(0, 199)}…` : problem.place;
  throw new UsageError(`createListing: ${JSON.stringify(place).slice(1, -1)} ${problem.why}`, { setting: { key: 'request' } });
}

/** What checkRequestJson refuses, as the place (`request.overrides.price`) and why; undefined for a request JSON carries as given. */
export function requestJsonProblem(request: unknown): { place: string; why: string } | undefined {
  if (!isPlainObject(request)) return { place: 'request', why: `must be an object, not ${kindOf(request)}` };
  const stack: Array<{ value: object; path: string; depth: number }> = [{ value: request, path: 'request', depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, depth } = item;
    if (depth > MAX_JSON_DEPTH) return { place: path, why: `is nested deeper than ${MAX_JSON_DEPTH} levels (or holds itself)` };
    const array = Array.isArray(value);
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      const place = array ? `${path}[${key}]` : `${path}.${key}`;
      const why = notSendable(child, array);
      if (why !== undefined) return { place, why };
      if (typeof child === 'object' && child !== null && !hasToJson(child)) stack.push({ value: child, path: place, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Why JSON would not carry `value` as given; undefined when it would. */
function notSendable(value: unknown, inArray: boolean): string | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : `is ${String(value)}, which JSON cannot carry (it would be sent as null)`;
    case 'bigint':
      return 'is a BigInt, which JSON cannot carry: give it as a number or a string';
    case 'function':
    case 'symbol':
      return `is a ${typeof value}, which JSON cannot carry (it would be ${inArray ? 'sent as null' : 'left out'})`;
    case 'undefined':
      return inArray ? 'is undefined, which JSON cannot carry in a list (it would be sent as null)' : undefined;
    default:
      return undefined;
  }
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
