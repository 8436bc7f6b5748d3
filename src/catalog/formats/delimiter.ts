import { UsageError } from '../../errors.js';

/** The delimiters sniffing chooses among, in the order that breaks ties. */
export const SNIFFED_DELIMITERS = [',', ';', '\t', '|'] as const;

const CODES = SNIFFED_DELIMITERS.map((d) => d.charCodeAt(0));

/**
 * The delimiter of a CSV file, from its first line: the candidate that occurs most often outside quoted values (a
 * comma when none occurs, as in a one-column file). A quote opens a quoted value only where a value starts (the
 * line's start, or after a candidate): one inside a value (a TSV's `title 5"`) hides none of the line after it.
 */
export function sniffDelimiter(head: Buffer): string {
  const counts = [0, 0, 0, 0];
  let quoted = false;
  let i = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  let valueStart = true;
  for (; i < head.length; i++) {
    const byte = head[i]!;
    const starts = valueStart;
    valueStart = false;
    if (byte === 0x22) {
      // A quote closes a quoted value, or is the first of a doubled quote: a quote right after it reopens the value.
      if (quoted) valueStart = true;
      quoted = quoted ? false : starts;
    } else if (quoted) continue;
    else if (byte === 0x0a || byte === 0x0d) break;
    else {
      const index = CODES.indexOf(byte);
      if (index >= 0) {
        counts[index]!++;
        valueStart = true;
      }
    }
  }
  let best = 0;
  for (let k = 1; k < counts.length; k++) if (counts[k]! > counts[best]!) best = k;
  return SNIFFED_DELIMITERS[best]!;
}

/** A delimiter as the user gave it: `tab` and `\t` spell the tab character. Throws UsageError for one that cannot work. */
export function normalizeDelimiter(value: string): string {
  const delimiter = value === 'tab' || value === '\\t' ? '\t' : value;
  if (delimiter === '' || /["\r\n]/.test(delimiter)) {
    throw new UsageError((name) => `${name('delimiter')} ${JSON.stringify(value)} cannot separate CSV fields; use one of , ; | tab`, { setting: { key: 'delimiter', value } });
  }
  return delimiter;
}

/**
 * True for TSV (a tab delimiter, whether named by the format, the flag or sniffed): a quote that is not the first
 * character of a cell is a character of its value (`12" pizza pan`), as TSV exports write it. A cell that starts with
 * a quote is quoted as in CSV (an Excel-saved TSV quotes cells holding tabs or line breaks). CSV stays strict: there a
 * stray quote is most often a quoted value gone wrong.
 */
export function quotesInsideAreLiteral(delimiter: string): boolean {
  return delimiter === '\t';
}
