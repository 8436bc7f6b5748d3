import { stripVTControlCharacters } from 'node:util';

/**
 * One field of the progress line. When the line is wider than the terminal, the field with the highest `drop` goes
 * first, then the next; `drop: 0` is never dropped (the row count).
 */
export interface ProgressField {
  text: string;
  drop: number;
}

/** How soon each field goes when the line is too wide: the least useful first, the count and percent last. */
export const DROP_ORDER = { pace: 8, busy: 7, inFlight: 6, eta: 5, rate: 4, invalid: 3, failed: 2, percent: 1, count: 0 } as const;

const SEPARATOR = ' · ';

/** The fields that fit in `width` columns (colour codes take none), joined; whole fields only, never one cut. No width: all of them. */
export function fitFields(fields: readonly ProgressField[], width: number | undefined): string {
  let kept = [...fields];
  const widthOf = (list: readonly ProgressField[]): number => stripVTControlCharacters(list.map((field) => field.text).join(SEPARATOR)).length;
  while (width !== undefined && widthOf(kept) > width) {
    const least = kept.reduce<ProgressField | undefined>((worst, field) => (field.drop > (worst?.drop ?? 0) ? field : worst), undefined);
    if (least === undefined) break;
    kept = kept.filter((field) => field !== least);
  }
  return kept.map((field) => field.text).join(SEPARATOR);
}
