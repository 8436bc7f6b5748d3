import { describe, expect, it } from 'vitest';
import { PushbackFilter, type PushbackReading, type TrialVerdict } from '../../../src/publish/flow/pushback-filter.js';

/**
 * Drives a filter as FlowControl does: requests numbered in send order, each answered in that order (`pushback(i)`
 * says which are 429/503), with `inFlight` requests on their way at any time. Returns the readings and verdicts.
 */
function drive(filter: PushbackFilter, answers: number, pushback: (seq: number) => boolean, options: { inFlight?: number; asked?: boolean; msPerAnswer?: number } = {}) {
  const inFlight = options.inFlight ?? 50;
  const readings: PushbackReading[] = [];
  const verdicts: TrialVerdict[] = [];
  for (let seq = 1; seq <= answers; seq++) {
    const now = seq * (options.msPerAnswer ?? 1);
    if (pushback(seq)) readings.push(filter.pushback(seq, now, seq + inFlight, options.asked ?? false));
    else filter.accepted(seq, now);
    const verdict = filter.takeVerdict();
    if (verdict !== undefined) verdicts.push(verdict);
  }
  return { readings, verdicts };
}

describe('PushbackFilter', () => {
  it('noise: one request in ten pushed back whatever the pace; two trials that did not help, then undo, then noise', () => {
    const filter = new PushbackFilter();
    const { readings, verdicts } = drive(filter, 2_000, (seq) => seq % 10 === 0);
    expect(readings[0]).toBe('trial');
    expect(verdicts.slice(0, 2)).toEqual(['again', 'undo']);
    // Once the floor is learned, the same share is noise: no more trials.
    const after = drive(filter, 2_000, (seq) => seq % 10 === 0).readings;
    expect(after.every((reading) => reading === 'noise')).toBe(true);
  });

  it('load: a storm of pushback that stops once the run slows down is kept, and never read as noise', () => {
    const filter = new PushbackFilter();
    // The first 300 answers pushed back one in two (a run far over a limit); after the cut, none.
    const { readings, verdicts } = drive(filter, 600, (seq) => seq < 300 && seq % 2 === 0, { inFlight: 100 });
    expect(readings).toContain('trial');
    expect(readings).not.toContain('noise');
    expect(verdicts).toContain('keep');
    expect(verdicts).not.toContain('undo');
  });

  it('a pushback with Retry-After is load, and starts no trial', () => {
    const filter = new PushbackFilter();
    const { readings, verdicts } = drive(filter, 2_000, (seq) => seq % 10 === 0, { asked: true });
    expect(new Set(readings)).toEqual(new Set(['load']));
    expect(verdicts).toEqual([]);
  });

  it('a share above a quarter is load even when slowing down does not lower it', () => {
    const filter = new PushbackFilter();
    const { readings, verdicts } = drive(filter, 2_000, (seq) => seq % 3 === 0);
    expect(readings).not.toContain('noise');
    expect(verdicts).not.toContain('undo');
  });

  it('a small share is noise too (one request in fifty): undone after two trials, then no more trials', () => {
    const filter = new PushbackFilter();
    const { verdicts } = drive(filter, 5_000, (seq) => seq % 50 === 0);
    expect(verdicts.slice(0, 2)).toEqual(['again', 'undo']);
    expect(drive(filter, 5_000, (seq) => seq % 50 === 0).readings.every((reading) => reading === 'noise')).toBe(true);
  });

  it('after a trial that did not help, the next pushback starts the second one, even when it looks like the floor', () => {
    const filter = new PushbackFilter();
    drive(filter, 3_000, (seq) => seq % 20 === 0);
    // The share rises past the floor (5 %: twice it plus 1 % is 11 %) and a trial does not lower it.
    let seq = 0;
    let verdict: TrialVerdict | undefined;
    while (verdict === undefined && seq < 3_000) {
      seq++;
      if (seq % 7 === 0) filter.pushback(seq, seq, seq + 50, false);
      else filter.accepted(seq, seq);
      verdict = filter.takeVerdict();
    }
    expect(verdict).toBe('again');
    // Then a quiet spell, and one pushback: read as noise, it left the first trial's cuts in place for good.
    for (let quiet = 0; quiet < 300; quiet++) filter.accepted(++seq, seq);
    expect(filter.pushback(++seq, seq, seq + 50, false)).toBe('trial');
  });

  it('a trial that sees no pushback is judged only once its share would have shown three', () => {
    const filter = new PushbackFilter();
    // One pushback in the first 40 answers: a share of 1 in 40, so 120 answers must pass without one.
    let seq = 0;
    for (; seq < 39; seq++) filter.accepted(seq + 1, seq + 1);
    expect(filter.pushback(++seq, seq, seq + 10, false)).toBe('trial');
    const judgedAt = (): number => {
      for (let after = 1; after <= 1_000; after++) {
        filter.accepted(++seq, seq);
        if (filter.takeVerdict() === 'keep') return after;
      }
      return Infinity;
    };
    // The 10 on their way answer first (the share before the cut), then the 120 sent after it.
    expect(judgedAt()).toBe(130);
  });

  it('one isolated pushback among the last 200 answers is noise from the start', () => {
    const filter = new PushbackFilter();
    const { readings } = drive(filter, 1_000, (seq) => seq === 500);
    expect(readings).toEqual(['noise']);
  });

  it('a trial on a slow run ends after 30 answers once it has lasted 2 s, not after 100', () => {
    const filter = new PushbackFilter();
    // 100 ms an answer: 30 answers after the cut take 3 s.
    const { verdicts } = drive(filter, 60, (seq) => seq === 5 || seq % 10 === 0, { inFlight: 2, msPerAnswer: 100 });
    expect(verdicts.length).toBeGreaterThan(0);
  });
});
