import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../src/http-date.js';
import { checkClock } from '../../../src/client/diagnose-request.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('parseHttpDate: the three forms RFC 9110 names, nothing Date.parse would guess at', () => {
  const cases: [string, string, string | undefined][] = [
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['IMF-fixdate, white space around', '  Mon, 01 Jun 2026 12:00:00 GMT ', '2026-06-01T12:00:00.000Z'],
    ['RFC 850, two-digit year in this century', 'Sunday, 06-Nov-26 08:49:37 GMT', '2026-11-06T08:49:37.000Z'],
    ['RFC 850, a year more than 50 ahead is the century before', 'Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['asctime', 'Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37.000Z'],
    ['asctime with GMT', 'Sun Nov 16 08:49:37 1994 GMT', '1994-11-16T08:49:37.000Z'],
    ['a leap second', 'Wed, 31 Dec 2016 23:59:60 GMT', '2017-01-01T00:00:00.000Z'],
    ['a number', '0', undefined],
    ['a month and a day', 'May 5', undefined],
    ['ISO 8601', '2026-01-01T00:00:00Z', undefined],
    ['a comment after the date', 'Thu, 01 Jan 2020 00:00:00 GMT (x)', undefined],
    ['another zone', 'Sun, 06 Nov 1994 08:49:37 PST', undefined],
    ['lower case', 'sun, 06 nov 1994 08:49:37 gmt', undefined],
    ['31 February', 'Sat, 31 Feb 2026 10:00:00 GMT', undefined],
    ['hour 24', 'Mon, 01 Jun 2026 24:00:00 GMT', undefined],
    ['day 00', 'Mon, 00 Jun 2026 10:00:00 GMT', undefined],
    ['one-digit day', 'Mon, 1 Jun 2026 10:00:00 GMT', undefined],
  ];
  it.each(cases)('%s: %j', (_name, text, iso) => {
    const at = parseHttpDate(text, NOW);
    expect(at === undefined ? undefined : new Date(at).toISOString()).toBe(iso);
  });
});

describe('doctor: the clock check', () => {
  const answer = (date: string | undefined) => ({ status: 400, headers: date === undefined ? {} : { date }, text: '', localMs: NOW, ms: 0 });

  it('compares the clock with an HTTP date, and says which way it is off', () => {
    expect(checkClock(answer('Mon, 01 Jun 2026 12:00:00 GMT'))).toMatchObject({ status: 'ok' });
    const off = checkClock(answer('Mon, 01 Jun 2026 12:05:00 GMT'));
    expect(off.status).toBe('warn');
    expect(off.message).toMatch(/^the local clock is 30[01] s behind the service's/);
  });

  it('tells a Date header that is not an HTTP date from a missing one, rather than reading a guess as a clock decades off', () => {
    expect(checkClock(answer(undefined)).message).toBe('the answer carries no Date header: the clock was not compared');
    expect(checkClock(answer('0')).message).toBe("the answer's Date header is not an HTTP date (0): the clock was not compared");
    expect(checkClock(answer('May 5')).status).toBe('warn');
    expect(checkClock(answer('May 5')).message).not.toMatch(/behind|ahead/);
  });
});
