import { RetryBudget } from '../publish/retry-budget.js';
import { DEFAULT_RETRY_POLICY } from '../publish/retry-policy.js';
import type { SendingPolicy } from './spec.js';

/** The sending settings as a person gives them (publish and stream alike): counts, requests per second, seconds. */
export interface SendingPolicyValues {
  /** A fixed number of requests in flight; without it the limit is learned up to `maxConcurrency`. */
  concurrency?: number | undefined;
  maxConcurrency?: number | undefined;
  rate?: number | undefined;
  /** Seconds without an answer from the service before the run gives up. */
  giveUpAfterSeconds?: number | undefined;
  maxAttempts: number;
}

/** The sending policy of a run: the concurrency (fixed or learned), the pace, the give-up, the retries and their budget. */
export function sendingPolicyOf(values: SendingPolicyValues): Omit<SendingPolicy, 'maxErrors'> {
  const { concurrency, maxConcurrency, rate, giveUpAfterSeconds } = values;
  return {
    ...(concurrency === undefined ? (maxConcurrency === undefined ? {} : { maxConcurrency }) : { concurrency }),
    ...(rate === undefined ? {} : { rate }),
    ...(giveUpAfterSeconds === undefined ? {} : { giveUpAfterMs: giveUpAfterSeconds * 1000 }),
    retryPolicy: { ...DEFAULT_RETRY_POLICY, maxAttempts: values.maxAttempts },
    retryBudget: new RetryBudget(),
  };
}
