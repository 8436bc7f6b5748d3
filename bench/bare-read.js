/**
 * The bare reading loops that `listings validate` is compared with: csv-parse over a CSV, or readline +
 * JSON.parse over NDJSON, counting records and nothing else. Prints { rows, ms, rowsPerSec }.
 *
 *   node bench/bare-read.js csv|ndjson <file>
 */
import { createReadStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';

const [format, file] = process.argv.slice(2);
if ((format !== 'csv' && format !== 'ndjson') || !file) {
  console.error('usage: node bench/bare-read.js csv|ndjson <file>');
  process.exit(2);
}
const started = performance.now();
let rows = 0;
if (format === 'csv') {
  for await (const record of createReadStream(file).pipe(parse({ columns: true }))) if (record) rows++;
} else {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line.length > 0 && JSON.parse(line)) rows++;
  }
}
const ms = performance.now() - started;
console.log(JSON.stringify({ rows, ms: Math.round(ms), rowsPerSec: Math.round((rows / ms) * 1000) }));
