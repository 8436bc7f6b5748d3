import { performance } from 'node:perf_hooks';

/**
 * The share of a stretch of time this process's event loop was busy at or above which it counts as saturated: the
 * answers that came meanwhile waited for it, so their latency is partly this process's own.
 */
const SATURATED = 0.98;

/**
 * A reader of this process's event loop: each call tells whether the loop was saturated since the last one (false on
 * the first). Cheap enough to call once per window a limiter judges.
 */
export function eventLoopSaturation(): () => boolean {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization >= SATURATED;
  };
}
