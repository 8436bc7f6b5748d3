/**
 * A preload (`--import`) that makes stdout look like a terminal of TTY_COLUMNS columns, for the help's layout:
 * commander and bin/listings.js both read `process.stdout.isTTY` and `.columns`. Without TTY_COLUMNS it does nothing.
 */
const columns = process.env.TTY_COLUMNS;
if (columns !== undefined) {
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  Object.defineProperty(process.stdout, 'columns', { value: Number(columns), configurable: true });
}
