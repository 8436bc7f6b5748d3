/**
 * The `--changed-only` state in memory: for each listing, by its identity (marketplace, SKU), the content hash of
 * the last request the service accepted for it. One Map of SKUs per marketplace, so a lookup builds no key string;
 * the rows of one marketplace in a row look theirs up once.
 *
 * A state written before listings were keyed by marketplace (SKU -> hash) is kept as the `legacy` entries: a row not
 * found under its marketplace is looked up there by SKU alone. That never skips a row wrongly, since the content hash
 * covers the marketplace: an equal hash means the very same request was accepted. A legacy entry goes once its SKU
 * is accepted again under a marketplace.
 */
export class ListingState {
  readonly #byMarketplace = new Map<string, Map<string, string>>();
  #legacy: Map<string, string> | undefined;
  #lastMarketplace: string | undefined;
  #last: Map<string, string> | undefined;
  #size = 0;
  #onSet: ((marketplace: string, sku: string, hash: string) => void) | undefined;

  /** Entries: `[marketplace, sku, hash]`; a legacy entry (marketplace unknown) has the marketplace `''`. */
  constructor(entries: Iterable<readonly [string, string, string]> = []) {
    for (const [marketplace, sku, hash] of entries) this.set(marketplace, sku, hash);
  }

  /** Listings in the state. */
  get size(): number {
    return this.#size;
  }

  #mapOf(marketplace: string): Map<string, string> | undefined {
    if (marketplace !== this.#lastMarketplace) {
      this.#lastMarketplace = marketplace;
      this.#last = this.#byMarketplace.get(marketplace);
    }
    return this.#last;
  }

  /** The hash last accepted for the listing, or undefined when it was never accepted (as far as the state knows). */
  get(marketplace: string, sku: string): string | undefined {
    const hash = this.#mapOf(marketplace)?.get(sku);
    return hash !== undefined || this.#legacy === undefined ? hash : this.#legacy.get(sku);
  }

  /**
   * Have `listener` told of every later `set` (one listener; `undefined` removes it): a run's state file is written
   * as the run goes.
   */
  onSet(listener: ((marketplace: string, sku: string, hash: string) => void) | undefined): void {
    this.#onSet = listener;
  }

  /** Note that the service accepted `hash` for the listing. The marketplace `''` adds a legacy entry. */
  set(marketplace: string, sku: string, hash: string): void {
    this.#set(marketplace, sku, hash);
    this.#onSet?.(marketplace, sku, hash);
  }

  #set(marketplace: string, sku: string, hash: string): void {
    if (marketplace === '') {
      this.#legacy ??= new Map();
      const before = this.#legacy.size;
      this.#legacy.set(sku, hash);
      this.#size += this.#legacy.size - before;
      return;
    }
    let map = this.#mapOf(marketplace);
    if (map === undefined) {
      map = new Map();
      this.#byMarketplace.set(marketplace, map);
      this.#last = map;
    }
    const before = map.size;
    map.set(sku, hash);
    this.#size += map.size - before;
    if (this.#legacy !== undefined && this.#legacy.delete(sku)) this.#size--;
  }

  /** Every entry as `[marketplace, sku, hash]`, marketplace by marketplace; legacy entries last, with marketplace `''`. */
  *entries(): Generator<[string, string, string]> {
    for (const [marketplace, map] of this.#byMarketplace) for (const [sku, hash] of map) yield [marketplace, sku, hash];
    if (this.#legacy !== undefined) for (const [sku, hash] of this.#legacy) yield ['', sku, hash];
  }
}
