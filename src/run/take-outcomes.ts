import type { RowOutcome } from '../publish/outcome.js';
import type { SummaryCounter } from '../report/index.js';
import { ROW_ERRORS_KEPT } from './publish-spec.js';
import type { RunOutputs } from './run-outputs.js';

/** Where each outcome of a run goes: the counts, the watcher, the outputs, and the first row errors kept to show. */
export interface OutcomeTakers {
  counter: SummaryCounter;
  onOutcome?: ((outcome: RowOutcome) => void) | undefined;
  outputs: RunOutputs;
  rowErrors: RowOutcome[];
}

/**
 * Hands each outcome of a run, in input order, to its takers. A source that stops part-way (the run's end is the
 * source's) is returned, after the rows read before it; any other error is thrown.
 */
export async function takeOutcomes(run: AsyncIterable<RowOutcome> & { readonly end: { kind: string } }, to: OutcomeTakers): Promise<unknown> {
  try {
    for await (const outcome of run) {
      to.counter.add(outcome);
      to.onOutcome?.(outcome);
      await to.outputs.write(outcome);
      if ((outcome.outcome === 'failed' || outcome.outcome === 'invalid') && to.rowErrors.length < ROW_ERRORS_KEPT) to.rowErrors.push(outcome);
    }
  } catch (error) {
    if (run.end.kind !== 'source') throw error;
    return error;
  }
  return undefined;
}
