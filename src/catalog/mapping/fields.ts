import { namedSetting, UsageError, type Setting } from '../../errors.js';
import { didYouMean } from '../../did-you-mean.js';
import { JsonDepthError, JsonDuplicateKeyError, parseJsonRecord } from '../../json-text.js';

/** Draft fields holding one text value. */
export const TEXT_FIELDS = [
  'sku',
  'title',
  'marketplace',
  'merchant_location_key',
  'fulfillment_policy_id',
  'payment_policy_id',
  'return_policy_id',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** The draft field holding a list of values. */
export const LIST_FIELD = 'images_source';

/** Draft fields a column can be mapped to; besides these, `overrides` and any `overrides.KEY`. */
export const MAPPABLE_FIELDS: readonly string[] = [...TEXT_FIELDS, LIST_FIELD, 'overrides'];

export const OVERRIDES_PREFIX = 'overrides.';

/** field -> column, as given by the `map` setting or a mapping file. */
export type FieldMap = Record<string, string>;

/**
 * Throws a UsageError (with a did-you-mean hint) when `field` is not something a column can be mapped to; `from` is
 * the setting that named it.
 */
export function checkTarget(field: string, from: Setting): void {
  if (MAPPABLE_FIELDS.includes(field)) return;
  // `__proto__` is no key an object can be given by assignment: its value would be dropped without a word.
  if (field.startsWith(OVERRIDES_PREFIX) && field.length > OVERRIDES_PREFIX.length && field !== `${OVERRIDES_PREFIX}__proto__`) return;
  const guess = didYouMean(field, MAPPABLE_FIELDS);
  throw new UsageError((name) => `${namedSetting(from, name)}: ${JSON.stringify(field)} is not a listing field`, {
    hint: `${guess ? `did you mean ${guess}? ` : ''}fields: ${MAPPABLE_FIELDS.join(', ')}, overrides.KEY`,
    setting: from,
  });
}

/** `field=Column` entries (the `map` setting as text) -> a field map; every target is checked before anything is read. */
export function parseMapFlags(entries: readonly string[]): FieldMap {
  const map: FieldMap = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const field = entry.slice(0, eq).trim();
    const column = entry.slice(eq + 1).trim();
    const setting = { key: 'map', value: entry };
    if (eq < 0 || field === '' || column === '') {
      throw new UsageError((name) => `${namedSetting(setting, name)}: expected field=Column, e.g. ${name('map')} sku="Variant SKU"`, { setting });
    }
    checkTarget(field, setting);
    map[field] = column;
  }
  return map;
}

/** The contents of a mapping file: a JSON object of field -> column. */
export function parseMappingJson(text: string, file: string): FieldMap {
  const setting = { key: 'mapping', value: file };
  const fail = (why: string): UsageError => new UsageError((name) => `${namedSetting(setting, name)}: ${why}`, { setting });
  // An editor may save it with a byte order mark (RFC 8259 lets a parser ignore one), as it may the config file.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let parsed: unknown;
  try {
    // A field named twice (`{"title": "A", "title": "B"}`) is refused: JSON.parse would keep the last in silence.
    parsed = parseJsonRecord(json);
  } catch (error) {
    if (error instanceof JsonDuplicateKeyError || error instanceof JsonDepthError) throw fail(error.message);
    throw fail(`not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw fail('expected a JSON object of field -> column, e.g. {"sku": "Variant SKU"}');
  }
  const map: FieldMap = {};
  for (const [field, column] of Object.entries(parsed)) {
    checkTarget(field, setting);
    if (typeof column !== 'string' || column.trim() === '') throw fail(`the column for ${field} must be a non-empty string`);
    map[field] = column.trim();
  }
  return map;
}
