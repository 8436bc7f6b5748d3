import { EXIT } from './exit-codes.js';

const ECHO_MS = 250;

/** What the signals of a run have asked for so far. */
export interface RunSignals {
  /** Aborted by the first SIGINT or SIGTERM: stop reading, let in-flight requests finish. */
  stop: AbortSignal;
  /** Aborted by the second: abandon in-flight requests. */
  abandon: AbortSignal;
  /** The first signal received, if any. */
  received(): NodeJS.Signals | undefined;
  /** Stop listening (the process's default handling returns). */
  dispose(): void;
}

/**
 * Ctrl-C and SIGTERM for a long run: the first asks for a clean stop (report and journal still written), the
 * second abandons in-flight requests, a third exits at once with 130. `onSignal` says what is happening.
 */
export function trapSignals(onSignal: (count: number, signal: NodeJS.Signals) => void): RunSignals {
  const stop = new AbortController();
  const abandon = new AbortController();
  let count = 0;
  let first: NodeJS.Signals | undefined;
  let last = -Infinity;
  const handle = (signal: NodeJS.Signals): void => {
    // A library's exit hook (when-exit, under conf) re-raises the signal it saw: the echo arrives within
    // milliseconds, a person's second Ctrl-C does not.
    const now = performance.now();
    if (now - last < ECHO_MS) return;
    last = now;
    count++;
    first ??= signal;
    onSignal(count, signal);
    if (count === 1) stop.abort();
    else if (count === 2) abandon.abort();
    // The user insisted three times: leave now.
    else process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
  return {
    stop: stop.signal,
    abandon: abandon.signal,
    received: () => first,
    dispose() {
      process.off('SIGINT', handle);
      process.off('SIGTERM', handle);
    },
  };
}

/**
 * Resolves at the first SIGINT or SIGTERM, for a server that runs until stopped; with `exitOnSecond`, a second one
 * while it stops leaves at once (130).
 */
export function untilSignal(exitOnSecond: boolean): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      if (exitOnSecond) {
        process.once('SIGINT', again);
        process.once('SIGTERM', again);
      }
      resolve(signal);
    };
    const again = (): void => process.exit(EXIT.interrupted);
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
}
