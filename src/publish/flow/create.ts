import { AdaptiveLimit } from './adaptive-limit.js';
import { Breaker } from './breaker.js';
import { FixedLimit } from './concurrency-limit.js';
import { FlowControl } from './flow-control.js';
import { Pacer } from './pacer.js';
import type { PublishOptions } from '../engine-types.js';

/** The flow control a run's options ask for: a fixed `concurrency`, or a limit learned up to `maxConcurrency`. */
export function createFlowControl(options: PublishOptions, now: number): FlowControl {
  const limit = options.limiter ?? (options.concurrency !== undefined ? new FixedLimit(options.concurrency) : new AdaptiveLimit(options.maxConcurrency === undefined ? {} : { max: options.maxConcurrency }));
  const pacer = new Pacer({
    ...(options.rate === undefined ? {} : { ceiling: options.rate }),
    maxHoldMs: (options.retryPolicy ?? { maxRetryAfterMs: 60_000 }).maxRetryAfterMs,
  });
  const breaker = new Breaker(now, options.giveUpAfterMs === undefined ? {} : { giveUpAfterMs: options.giveUpAfterMs });
  return new FlowControl(limit, pacer, breaker, options.onEvent);
}
