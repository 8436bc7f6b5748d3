import { distance } from '../../did-you-mean.js';
import { LIST_FIELD, TEXT_FIELDS, type FieldMap } from './fields.js';

/** The names a column giving each field is often given in exports and spreadsheets, besides the field's own. */
const NAMES: Readonly<Record<string, readonly string[]>> = {
  sku: ['sku', 'sku id', 'item sku', 'product sku', 'article number', 'item number', 'part number'],
  title: ['title', 'name', 'product name', 'item name', 'product title', 'item title'],
  marketplace: ['marketplace', 'market', 'marketplace id', 'site'],
  merchant_location_key: ['merchant location key', 'location', 'location key', 'merchant location', 'warehouse', 'inventory location'],
  fulfillment_policy_id: ['fulfillment policy id', 'fulfillment', 'fulfilment', 'fulfillment policy', 'fulfilment policy', 'shipping policy', 'shipping'],
  payment_policy_id: ['payment policy id', 'payment', 'payment policy'],
  return_policy_id: ['return policy id', 'return', 'returns', 'return policy'],
  [LIST_FIELD]: ['images source', 'image', 'images', 'image url', 'image urls', 'image src', 'picture', 'pictures', 'photo', 'photos', 'image link'],
};

/** A name in lower case, its words separated by one space (`SKU_ID` -> `sku id`). */
function words(name: string): string {
  return name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
    .join(' ');
}

/** The fields a column may give when one of its words is one of their names (`Main Image`); a setting needs its name. */
const BY_WORD = new Set(['sku', 'title', LIST_FIELD]);

/**
 * How surely a column gives a field: 3 its name, 2 a typo of it (same first letter), 1 one of its words (content
 * fields only: `Variant Fulfillment Service` is no policy id); 0 not at all.
 */
function score(column: string, field: string): number {
  const name = words(column);
  const names = NAMES[field] ?? [];
  if (names.includes(name)) return 3;
  if (name.length >= 4 && names.some((known) => known.length >= 5 && known[0] === name[0] && distance(name, known) <= 2)) return 2;
  if (!BY_WORD.has(field)) return 0;
  const own = name.split(' ');
  return names.some((known) => !known.includes(' ') && known.length >= 3 && own.includes(known)) ? 1 : 0;
}

/** One column proposed for a field, and whether its name looked like a typo of the field's (a did-you-mean). */
export interface ProposedColumn {
  field: string;
  column: string;
  typo: boolean;
}

/**
 * The columns of a header that likely give the fields no column gives yet (neither by the field's own name, nor as
 * renamed in `map`), each column for one field at most, the surest matches first. Pure.
 */
export function proposeMapping(columns: readonly string[], map: FieldMap): ProposedColumn[] {
  const fields = [...TEXT_FIELDS, LIST_FIELD].filter((field) => map[field] === undefined && !columns.some((column) => words(column) === words(field) || column.startsWith(`${field}.`)));
  const taken = new Set([...Object.values(map), ...columns.filter((column) => [...TEXT_FIELDS, LIST_FIELD].some((field) => words(column) === words(field)))]);
  const pairs = fields.flatMap((field) => columns.filter((column) => !taken.has(column)).map((column) => ({ field, column, score: score(column, field) })));
  const chosen: ProposedColumn[] = [];
  for (const pair of pairs.filter((candidate) => candidate.score > 0).sort((a, b) => b.score - a.score)) {
    if (taken.has(pair.column) || chosen.some((made) => made.field === pair.field)) continue;
    taken.add(pair.column);
    chosen.push({ field: pair.field, column: pair.column, typo: pair.score === 2 });
  }
  const order = [...TEXT_FIELDS, LIST_FIELD] as readonly string[];
  return chosen.sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
}
