import { describe, expect, it } from 'vitest';
import { Pacer } from '../../../src/publish/flow/pacer.js';
import { ThrottledCohort } from '../../../src/publish/flow/throttled-cohort.js';

describe('ThrottledCohort', () => {
  it('is the share accepted of the requests sent blind, times the rate they left at, once 90 % are answered', () => {
    // 300 requests (seq 100..399) sent over 50 ms, 6,000/s; the bucket let 20 of them through: 400/s.
    const cohort = ThrottledCohort.begin({ seq: 100, sentAt: 1000 }, 399, 1050)!;
    expect(cohort).toBeDefined();
    for (let seq = 101; seq < 369; seq++) cohort.note({ seq, sentAt: 1000 + (seq - 100) / 6 }, seq % 15 === 0);
    expect(cohort.rate()).toBeUndefined();
    // Answers to requests outside it (older, or sent after the 429 came back) are not its own.
    cohort.note({ seq: 99, sentAt: 999 }, true);
    cohort.note({ seq: 400, sentAt: 1051 }, true);
    expect(cohort.rate()).toBeUndefined();
    cohort.note({ seq: 369, sentAt: 1045 }, false);
    // 18 accepted of the 270 answered (every 15th seq from 105 to 360) x 300 requests / 50 ms.
    expect(cohort.rate()).toBeCloseTo((18 / 270) * 300 * 20, 6);
  });

  it('is not begun for a few requests or a few ms: a service that answers 429s at once shows its limit in the burst', () => {
    expect(ThrottledCohort.begin({ seq: 1, sentAt: 0 }, 20, 100)).toBeUndefined();
    expect(ThrottledCohort.begin({ seq: 1, sentAt: 100 }, 500, 105)).toBeUndefined();
  });

  it('waits half again the slowest recent accepted latency, and never more than a second', () => {
    expect(ThrottledCohort.waitMs([80, 150, 120])).toBe(225);
    expect(ThrottledCohort.waitMs([5000])).toBe(1000);
    expect(ThrottledCohort.waitMs([])).toBe(15);
  });
});

describe('Pacer after a start-up that overshot a token bucket whose 429s come at its usual latency', () => {
  it('sends nothing until the requests sent blind tell the rate, then paces just under it', () => {
    const pacer = new Pacer();
    // Start-up: 1,000 requests accepted over 100 ms answers (100 ms each).
    let seq = 0;
    for (let t = 0; t < 100; t += 0.1) pacer.onAccepted(t + 100, { seq: ++seq, sentAt: t });
    // The bucket ran dry at 150 ms; 300 more left by 200 ms, when the first 429 (sent at 150) came back.
    const first = { seq: seq + 1, sentAt: 150 };
    const blind = Array.from({ length: 300 }, (_, k) => ({ seq: seq + 1 + k, sentAt: 150 + k / 6 }));
    pacer.onPushback(200, first.seq, blind.at(-1)!.seq, true, 1000, first.sentAt);
    const burstPace = pacer.rate(200)!;
    expect(burstPace).toBeGreaterThan(1000);
    expect(pacer.nextSendAt(200)).toBeGreaterThan(300);
    // The blind requests are answered a round trip after they left: 1 in 15 accepted (400/s).
    for (const sent of blind.slice(1)) {
      const at = sent.sentAt + 100;
      if (sent.seq % 15 === 0) pacer.onAccepted(at, sent);
      else pacer.onPushback(at, sent.seq, blind.at(-1)!.seq, true, 1000, sent.sentAt);
    }
    const rate = pacer.rate(300)!;
    expect(rate).toBeGreaterThan(0.9 * 0.9 * 400);
    expect(rate).toBeLessThan(400);
    expect(pacer.nextSendAt(300)).toBeLessThan(310);
  });
});
