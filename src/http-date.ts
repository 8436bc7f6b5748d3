const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const DAY = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const DAY_NAME = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^(?:${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC_850 = new RegExp(`^(?:${DAY_NAME}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete: C's asctime; some servers add ` GMT`) */
const ASCTIME = new RegExp(`^(?:${DAY}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})(?: GMT)?$`);

/**
 * An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms) as epoch milliseconds;
 * undefined for any other text. Strict where Date.parse guesses: `0`, `May 5` or `2026-01-01` from a server are not
 * dates in HTTP, and a guess (the year 2000, 2001) would be read as a clock decades off. `nowMs` places a two-digit
 * year: more than 50 years ahead is taken as the century before, as the RFC says.
 */
export function parseHttpDate(value: string, nowMs = Date.now()): number | undefined {
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) return utc(Number(m[3]), m[2]!, Number(m[1]), m.slice(4, 7));
  m = RFC_850.exec(text);
  if (m !== null) {
    const thisYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2]!, Number(m[1]), m.slice(4, 7));
  }
  m = ASCTIME.exec(text);
  if (m !== null) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m.slice(3, 6));
  return undefined;
}

/** The instant, or undefined for a day or time that does not exist (31 Feb, 25:00). A leap second (:60) is allowed. */
function utc(year: number, month: string, day: number, time: string[]): number | undefined {
  const [hour, minute, second] = time.map(Number) as [number, number, number];
  const monthIndex = MONTHS.indexOf(month);
  if (hour > 23 || minute > 59 || second > 60 || day < 1) return undefined;
  const at = Date.UTC(year, monthIndex, day, hour, minute, Math.min(second, 59));
  if (new Date(at).getUTCDate() !== day) return undefined;
  return at + (second === 60 ? 1000 : 0);
}
