import { stripVTControlCharacters as visible } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { DROP_ORDER, fitFields, type ProgressField } from '../../../src/run/progress-line.js';
import { ProgressDisplay } from '../../../src/cli/progress.js';

// The line of a busy run: 133 columns, as a run against a throttling service draws it.
const BUSY: ProgressField[] = [
  { text: '12,345/100,000 rows', drop: DROP_ORDER.count },
  { text: '12%', drop: DROP_ORDER.percent },
  { text: '1,234 rows/s', drop: DROP_ORDER.rate },
  { text: '\u001b[31m12 failed\u001b[39m', drop: DROP_ORDER.failed },
  { text: '64/64 in flight', drop: DROP_ORDER.inFlight },
  { text: 'paced 1,200/s', drop: DROP_ORDER.pace },
  { text: '\u001b[2mbusy: 3 throttled, 2 overloaded\u001b[22m', drop: DROP_ORDER.busy },
  { text: 'ETA 1m 12s', drop: DROP_ORDER.eta },
];

describe('the progress line fits the terminal', () => {
  it.each([
    [200, '12,345/100,000 rows · 12% · 1,234 rows/s · 12 failed · 64/64 in flight · paced 1,200/s · busy: 3 throttled, 2 overloaded · ETA 1m 12s'],
    [120, '12,345/100,000 rows · 12% · 1,234 rows/s · 12 failed · 64/64 in flight · busy: 3 throttled, 2 overloaded · ETA 1m 12s'],
    [80, '12,345/100,000 rows · 12% · 1,234 rows/s · 12 failed · ETA 1m 12s'],
    [60, '12,345/100,000 rows · 12% · 1,234 rows/s · 12 failed'],
    [30, '12,345/100,000 rows · 12%'],
    [10, '12,345/100,000 rows'],
  ])('at %i columns, by dropping the least useful fields whole', (width, expected) => {
    const line = fitFields(BUSY, width);
    expect(visible(line)).toBe(expected);
    if (width >= 19) expect(visible(line).length).toBeLessThanOrEqual(width);
  });

  it('keeps every field with no width (plain logs), and colour codes take no columns', () => {
    expect(visible(fitFields(BUSY, undefined)).length).toBe(133);
    expect(fitFields(BUSY, 133)).toBe(fitFields(BUSY, undefined));
  });

  describe('the display', () => {
    const columns = Object.getOwnPropertyDescriptor(process.stderr, 'columns');
    afterEach(() => {
      if (columns === undefined) delete (process.stderr as { columns?: number }).columns;
      else Object.defineProperty(process.stderr, 'columns', columns);
    });

    it("fits its line to stderr's columns, leaving room for the spinner", async () => {
      Object.defineProperty(process.stderr, 'columns', { value: 60, configurable: true });
      let now = 0;
      const flow = () => ({ inFlight: 64, window: 64, pace: 1_200, throttled: 3, overloaded: 2 });
      const display = await ProgressDisplay.start({ mode: 'off', readProgress: () => ({ bytesRead: 0 }), total: 100_000, flow, now: () => now });
      for (let i = 0; i < 12_345; i++) display.tick({ index: i, location: { source: 'c.csv', line: i + 2 }, outcome: 'published', attempts: 1, durationMs: 1 });
      now = 10_000;
      expect(visible(display.line())).toBe('12,345/100,000 rows · 12% · 1,235 rows/s · ETA 1m 11s');
    });
  });
});
