/** A source of numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: small, fast and good enough to draw faults reproducibly from a seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Independent streams for each kind of fault, so that turning on latency does not change which requests fail.
 * Without a seed each run draws differently.
 */
export function faultStreams(seed: number | undefined): { fail: Random; latency: Random; drop: Random; spike: Random } {
  const base = seed ?? Math.floor(Math.random() * 2 ** 32);
  return {
    fail: seededRandom(base ^ 0x9e3779b9),
    latency: seededRandom(base ^ 0x85ebca6b),
    drop: seededRandom(base ^ 0xc2b2ae35),
    spike: seededRandom(base ^ 0x27d4eb2f),
  };
}
