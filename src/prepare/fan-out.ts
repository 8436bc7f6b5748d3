import type { Draft } from '../catalog/types.js';
import { ConfigError } from '../errors.js';
import { marketplaceFor } from './checks.js';
import type { ListingDefaults } from './types.js';

/** The marketplaces a row that names none goes to: several for a fan-out, the one default, or none. */
export function defaultMarketplaces(defaults: ListingDefaults): readonly string[] {
  if (defaults.marketplaces !== undefined && defaults.marketplaces.length > 0) return defaults.marketplaces;
  return defaults.marketplace === undefined ? [] : [defaults.marketplace];
}

/**
 * Refuses a fan-out whose marketplaces are one and the same in the shape's form: the wrapped shape names a
 * marketplace without its region (`EBAY_US` and `EBAY_GB` are both `ebay`), so each row would be sent twice as one
 * listing.
 */
export function checkFanOut(defaults: ListingDefaults): void {
  const seen = new Map<string, string>();
  for (const marketplace of defaultMarketplaces(defaults)) {
    const shaped = marketplaceFor(defaults.shape, marketplace, []);
    const earlier = seen.get(shaped);
    if (earlier !== undefined) {
      throw new ConfigError(`marketplace: ${earlier} and ${marketplace} are one marketplace (${shaped}) in the ${defaults.shape} shape, so every row would go to it twice`, {
        hint: defaults.shape === 'wrapped' ? 'the wrapped shape names no region: give one marketplace, or use the flat shape' : 'give each marketplace once',
      });
    }
    seen.set(shaped, marketplace);
  }
}

/** A draft that is a listing to fan out: not a row that is no listing, not an unreadable record, no marketplace of its own. */
function fannable(draft: Draft): boolean {
  if (draft.skip !== undefined || draft.values.marketplace !== undefined) return false;
  for (const issue of draft.issues) if (issue.path === '(record)') return false;
  return true;
}

function copyFor(draft: Draft, marketplace: string, first: boolean): Draft {
  const copy: Draft = { ...draft, values: { ...draft.values, marketplace } };
  // The input row is counted once, with its first marketplace.
  if (!first) copy.rows = 0;
  return copy;
}

/**
 * The drafts of a run that publishes to several marketplaces (`defaults.marketplaces`): each draft that names no
 * marketplace of its own becomes one draft per marketplace, in the order given, one after the other; a row's own
 * marketplace wins (it is not fanned out), and a row that is no listing or cannot be read stays one. The first copy
 * counts the input rows (`rows`), the others count 0, so input rows still add up. With fewer than two marketplaces
 * the drafts are passed on untouched.
 */
export class FanOut implements AsyncIterable<Draft> {
  /** Drafts taken from the source so far. */
  taken = 0;
  #left = 0;
  readonly #drafts: AsyncIterable<Draft>;
  readonly #marketplaces: readonly string[];

  constructor(drafts: AsyncIterable<Draft>, defaults: ListingDefaults) {
    checkFanOut(defaults);
    this.#drafts = drafts;
    this.#marketplaces = defaultMarketplaces(defaults);
  }

  /** How many listings one input row makes at most. */
  get factor(): number {
    return Math.max(1, this.#marketplaces.length);
  }

  /** Copies of the last draft taken not yet handed on (a run stopped between them never reports them). */
  get copiesLeft(): number {
    return this.#left;
  }

  [Symbol.asyncIterator](): AsyncIterator<Draft> {
    const source = this.#drafts[Symbol.asyncIterator]();
    const marketplaces = this.#marketplaces;
    if (marketplaces.length < 2) {
      return {
        next: () =>
          source.next().then((result) => {
            if (result.done !== true) this.taken++;
            return result;
          }),
        return: (value?: unknown) => source.return?.(value) ?? Promise.resolve({ value: undefined, done: true }),
      };
    }
    let pending: Draft | undefined;
    let at = 0;
    // A plain iterator rather than a generator: one promise per copy handed on, none per step of a generator.
    return {
      next: () => {
        if (pending !== undefined) {
          const draft = pending;
          const marketplace = marketplaces[at++]!;
          this.#left--;
          if (at === marketplaces.length) pending = undefined;
          return Promise.resolve({ value: copyFor(draft, marketplace, false), done: false });
        }
        return source.next().then((result) => {
          if (result.done === true) return result;
          this.taken++;
          if (!fannable(result.value)) return result;
          pending = result.value;
          at = 1;
          this.#left = marketplaces.length - 1;
          return { value: copyFor(result.value, marketplaces[0]!, true), done: false };
        });
      },
      return: (value?: unknown) => {
        pending = undefined;
        return source.return?.(value) ?? Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** One draft as the drafts of a fan-out to `marketplaces` (itself alone when it is not fanned out). */
export function fanOutDraft(draft: Draft, marketplaces: readonly string[]): Draft[] {
  if (marketplaces.length < 2 || !fannable(draft)) return [draft];
  return marketplaces.map((marketplace, i) => copyFor(draft, marketplace, i === 0));
}

/** `new FanOut(drafts, defaults)` when there are several marketplaces, else the drafts themselves. */
export function fanOutDrafts(drafts: AsyncIterable<Draft>, defaults: ListingDefaults): AsyncIterable<Draft> {
  return defaultMarketplaces(defaults).length < 2 ? drafts : new FanOut(drafts, defaults);
}
