import type { Location } from '../../errors.js';
import { columnsNotRead } from './map-record.js';
import type { FieldMap } from './fields.js';

/** The most key names remembered: a hostile file with a new key in every record cannot grow the set without end. */
export const MAX_KEYS = 10_000;

/** A key no field reads that a record after the first brought, and where it was first seen. */
export interface LaterKey {
  key: string;
  at: Location;
}

/**
 * The keys of JSON records (which need not share their keys, as CSV rows share a header) that no listing field reads,
 * over every record: the first record's are told when it is read, those that only later records hold at the end. Most
 * records repeat keys already seen, so a record is looked at whole only when it holds a key not seen before.
 */
export class KeysNotRead {
  readonly #map: FieldMap;
  readonly #seen = new Set<string>();
  /** Keys no field reads, first seen after the first record, with where they were first seen. */
  readonly #later: LaterKey[] = [];
  #records = 0;
  #full = false;

  constructor(map: FieldMap) {
    this.#map = map;
  }

  /** The keys of this record that no field reads and no record before it held. */
  add(fields: Record<string, unknown>, at: Location): string[] {
    this.#records++;
    if (this.#full) return [];
    let fresh = false;
    for (const key in fields) {
      if (!this.#seen.has(key)) {
        fresh = true;
        break;
      }
    }
    if (!fresh) return [];
    const keys = Object.keys(fields);
    const unread = columnsNotRead(keys, this.#map).filter((key) => !this.#seen.has(key));
    for (const key of keys) this.#seen.add(key);
    if (this.#seen.size >= MAX_KEYS) this.#full = true;
    if (this.#records > 1) for (const key of unread) this.#later.push({ key, at });
    return unread;
  }

  /** The keys no field reads that records after the first brought, in the order met; whether the count stopped. */
  get later(): { keys: readonly LaterKey[]; capped: boolean } {
    return { keys: this.#later, capped: this.#full };
  }
}
