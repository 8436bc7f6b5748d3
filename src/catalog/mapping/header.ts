import { UsageError } from '../../errors.js';
import { didYouMean } from '../../config/did-you-mean.js';
import { LIST_FIELD, type FieldMap } from './fields.js';
import { numberedColumns } from './map-record.js';

/** The column most like `wanted`, ignoring case, when it is close enough to be a likely typo. */
export function closestColumn(wanted: string, columns: readonly string[]): string | undefined {
  const byLower = new Map(columns.map((column) => [column.toLowerCase(), column]));
  const guess = didYouMean(wanted.toLowerCase(), byLower.keys());
  return guess === undefined ? undefined : byLower.get(guess);
}

export function listColumns(columns: readonly string[]): string {
  const shown = columns.slice(0, 12).map((column) => JSON.stringify(column));
  return `${shown.join(', ')}${columns.length > shown.length ? `, ... (${columns.length} columns)` : ''}`;
}

function presetHint(columns: readonly string[]): string {
  if (columns.includes('Handle') && columns.includes('Variant SKU')) return '; this looks like a Shopify export: try --preset shopify';
  if (columns.includes('Type') && columns.includes('Parent')) return '; this looks like a WooCommerce export: try --preset woocommerce';
  return '';
}

/**
 * For sources with a header (CSV, TSV): every mapped column must be in it, and some column must give the SKU.
 * Checked once, on the first record, so a wrong mapping is one clear message rather than an error on every row.
 */
export function checkHeader(columns: readonly string[], map: FieldMap, source: string): void {
  for (const [field, column] of Object.entries(map)) {
    if (columns.includes(column)) continue;
    if (field === LIST_FIELD && numberedColumns(columns, column).length > 0) continue;
    const guess = closestColumn(column, columns);
    throw new UsageError(`--map ${field}=${column}: ${source} has no column ${JSON.stringify(column)}`, {
      hint: guess ? `did you mean ${JSON.stringify(guess)}?` : `its columns: ${listColumns(columns)}`,
    });
  }
  if (map.sku === undefined && !columns.includes('sku')) {
    const guess = columns.find((column) => column.toLowerCase().includes('sku')) ?? closestColumn('sku', columns);
    throw new UsageError(`${source} has no sku column`, {
      hint: `name the SKU column with --map sku=${guess ? JSON.stringify(guess) : 'COLUMN'} (its columns: ${listColumns(columns)})${presetHint(columns)}`,
    });
  }
}
