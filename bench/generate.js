/**
 * Deterministic benchmark catalogs: the same seed gives the same bytes on every machine. Files are written under
 * bench/data/ (git-ignored) through a temporary name and reused when present.
 *
 *   node bench/generate.js --rows 100000 --format csv|ndjson [--dir bench/data]
 */
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
// The sandbox's seeded generator (mulberry32), from the build the benchmark measures anyway.
import { seededRandom } from '../dist/sandbox/random.js';

/** Bump when the rows change, so stale files are not reused. */
export const CATALOG_VERSION = 1;
export const DEFAULT_DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'data');

/** CSV header: the API's field names, so `listings` maps them without a mapping file. */
export const CSV_COLUMNS = [
  'sku',
  'marketplace',
  'title',
  'images_source',
  'merchant_location_key',
  'fulfillment_policy_id',
  'payment_policy_id',
  'return_policy_id',
  'overrides.condition',
];

const CONDITIONS = ['NEW', 'NEW', 'NEW', 'USED', 'USED', 'LIKE_NEW', 'NEW_OTHER', 'REFURBISHED'];
const ADJECTIVES = ['Vintage', 'Classic', 'Premium', 'Organic', 'Rugged', 'Compact', 'Deluxe', 'Handmade', 'Wireless', 'Slim'];
const NOUNS = ['Leather Wallet', 'Denim Jacket', 'Ceramic Mug', 'Trail Shoes', 'Desk Lamp', 'Wool Scarf', 'Backpack', 'Watch Strap', 'Chef Knife', 'Phone Case'];
const DETAILS = ['Size M', 'Blue', 'Black, Large', '2-Pack', 'Oak', '"Limited" Edition', 'Stainless Steel', 'Red/White', 'XL', 'Unisex'];
const LOCATIONS = ['warehouse-berlin-01', 'warehouse-ohio-02', 'store-lyon-03', 'dc-austin-04'];

const pick = (random, list) => list[Math.floor(random() * list.length)];

/** A title of exactly 60 characters; some contain commas and quotes, as real exports do. */
function title(random, n) {
  const sep = random() < 0.3 ? ', ' : ' ';
  const base = `${pick(random, ADJECTIVES)} ${pick(random, NOUNS)}${sep}${pick(random, DETAILS)} #${n}`;
  return `${base} - Genuine Quality for Everyday Use and Gifts`.padEnd(60, '.').slice(0, 60);
}

/** Row number `i` (1-based) as the fields of a flat request plus a title. */
export function row(random, i) {
  const id = String(i).padStart(7, '0');
  const images = [1, 2, 3].map((k) => `https://images.example.com/catalog/${id}/view-${k}.jpg`);
  return {
    sku: `SKU-${id}`,
    marketplace: 'EBAY_US',
    title: title(random, i),
    images_source: images,
    merchant_location_key: pick(random, LOCATIONS),
    fulfillment_policy_id: `fp-${100000 + Math.floor(random() * 8)}`,
    payment_policy_id: `pp-${200000 + Math.floor(random() * 4)}`,
    return_policy_id: `rp-${300000 + Math.floor(random() * 4)}`,
    overrides: { condition: pick(random, CONDITIONS) },
  };
}

function csvCell(value) {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function csvLine(r) {
  return [
    r.sku,
    r.marketplace,
    r.title,
    r.images_source.join('|'),
    r.merchant_location_key,
    r.fulfillment_policy_id,
    r.payment_policy_id,
    r.return_policy_id,
    r.overrides.condition,
  ]
    .map(csvCell)
    .join(',');
}

/** Path of the catalog of `rows` rows in `format`, without creating it. */
export function catalogPath(rows, format, dir = DEFAULT_DATA_DIR) {
  return join(dir, `catalog-${rows}.v${CATALOG_VERSION}.${format}`);
}

/** Writes the catalog unless it already exists; resolves its path. */
export async function ensureCatalog(rows, format, dir = DEFAULT_DATA_DIR) {
  if (format !== 'csv' && format !== 'ndjson') throw new Error(`unknown format ${format}`);
  const path = catalogPath(rows, format, dir);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  const out = createWriteStream(partial);
  const random = seededRandom(20240611);
  let chunk = format === 'csv' ? `${CSV_COLUMNS.join(',')}\n` : '';
  for (let i = 1; i <= rows; i++) {
    const r = row(random, i);
    chunk += format === 'csv' ? `${csvLine(r)}\n` : `${JSON.stringify(r)}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  renameSync(partial, path);
  return path;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { rows: { type: 'string', default: '100000' }, format: { type: 'string', default: 'csv' }, dir: { type: 'string' } },
  });
  const path = await ensureCatalog(Number(values.rows), values.format, values.dir ? resolve(values.dir) : DEFAULT_DATA_DIR);
  console.log(path);
}
