import { ApiError, TimeoutError } from '../../src/errors.js';
import type { FailureKind } from '../../src/client/classify.js';
import type { FlowControl } from '../../src/publish/flow/flow-control.js';
import { seededRandom } from '../../src/sandbox/random.js';
import { DueQueue } from '../../src/publish/due-queue.js';

/** A service model, as the sandbox's flags describe one. */
export interface ServiceModel {
  latencyMs: [number, number];
  /** Served at once; unset: unlimited. */
  capacity?: number;
  /** Waiting beyond capacity; past it, 503. Unset: unlimited. */
  queue?: number;
  /** Token bucket (burst of one second); past it, 429 with Retry-After. */
  rateLimit?: number;
  /** The Retry-After of the rate limit's 429s (default 1); `null`: none (a limit that does not say how long). */
  retryAfterS?: number | null;
  /** Never answers (every request times out after timeoutMs). */
  hang?: boolean;
  /** A 429 comes after the model's latency, as the sandbox answers it, rather than at once. */
  slowRejections?: boolean;
  /** The token bucket's burst, in seconds of its rate (default 1). */
  burstS?: number;
  /**
   * The share of requests answered 429 with no Retry-After whatever the pace (a per-item limit, a flaky gateway):
   * throttling that slowing down does not cure.
   */
  sporadic429?: number;
  /** The same with 503 (the sandbox's --fail-rate with --fail-status 503). */
  sporadic503?: number;
}

/** What a simulated run saw. */
export interface SimResult {
  /** Simulated milliseconds from the first send to the last answer. */
  durationMs: number;
  accepted: number;
  requests: number;
  rejected: number;
  /** Rejections (429/503) after the first second. */
  rejectedAfterFirstSecond: number;
  requestsAfterFirstSecond: number;
  peakInFlight: number;
  verdict: string | undefined;
}

/** A discrete-event simulation: virtual time, events in time order. */
export class Simulation {
  now = 0;
  readonly #events = new DueQueue<() => void>();

  schedule(at: number, run: () => void): void {
    this.#events.push(run, at);
  }

  /** Run until no event is left or `untilMs` passes. */
  run(untilMs: number): void {
    for (let at = this.#events.nextDueAt(); at !== undefined && at <= untilMs; at = this.#events.nextDueAt()) {
      const run = this.#events.pop() as () => void;
      this.now = Math.max(this.now, at);
      run();
    }
  }
}

/** The simulated service: admission (rate limit, capacity, queue), service times, answers through callbacks. */
export class SimulatedService {
  readonly #sim: Simulation;
  readonly #model: ServiceModel;
  readonly #random: () => number;
  #tokens: number;
  #tokensAt = 0;
  #inService = 0;
  readonly #waiting: (() => void)[] = [];
  peakInFlight = 0;
  #inFlight = 0;

  constructor(sim: Simulation, model: ServiceModel, seed = 1) {
    this.#sim = sim;
    this.#model = model;
    this.#random = seededRandom(seed);
    this.#tokens = model.rateLimit === undefined ? 0 : Math.max(1, model.rateLimit * (model.burstS ?? 1));
  }

  /** A request arrives now; `answer` is called with an error (or undefined when accepted) at the answer's time. */
  request(answer: (error: unknown) => void): void {
    const sim = this.#sim;
    const model = this.#model;
    if (model.hang) return;
    this.#inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.#inFlight);
    const reply = (at: number, error: unknown): void => {
      sim.schedule(at, () => {
        this.#inFlight--;
        answer(error);
      });
    };
    if (model.sporadic429 !== undefined && this.#random() < model.sporadic429) {
      const [min, max] = model.latencyMs;
      return reply(sim.now + min + (max - min) * this.#random(), new ApiError(429, 'HTTP 429', undefined));
    }
    if (model.sporadic503 !== undefined && this.#random() < model.sporadic503) {
      const [min, max] = model.latencyMs;
      return reply(sim.now + min + (max - min) * this.#random(), new ApiError(503, 'HTTP 503', undefined));
    }
    if (model.rateLimit !== undefined) {
      this.#tokens = Math.min(Math.max(1, model.rateLimit * (model.burstS ?? 1)), this.#tokens + ((sim.now - this.#tokensAt) / 1000) * model.rateLimit);
      this.#tokensAt = sim.now;
      if (this.#tokens < 1) {
        const [min, max] = model.latencyMs;
        const after = model.slowRejections === true ? min + (max - min) * this.#random() : 1;
        return reply(sim.now + after, new ApiError(429, 'HTTP 429', undefined, model.retryAfterS === null ? undefined : String(model.retryAfterS ?? 1)));
      }
      this.#tokens -= 1;
    }
    const serve = (): void => {
      this.#inService++;
      const [min, max] = model.latencyMs;
      sim.schedule(sim.now + min + (max - min) * this.#random(), () => {
        this.#inService--;
        this.#inFlight--;
        answer(undefined);
        this.#waiting.shift()?.();
      });
    };
    if (model.capacity === undefined || this.#inService < model.capacity) return serve();
    if (this.#waiting.length >= (model.queue ?? Infinity)) return reply(sim.now + 1, new ApiError(503, 'HTTP 503', undefined));
    this.#waiting.push(serve);
  }
}

const KIND_OF: Record<number, FailureKind> = { 429: 'throttled', 503: 'overloaded' };

/**
 * Publish `rows` rows through each of `flows` (one per client process) against one service: every rejected row is
 * sent again after its Retry-After (or 50 ms), as the engine does. Returns the combined figures.
 */
export function simulate(model: ServiceModel, flows: FlowControl[], rows: number, options: { timeoutMs?: number; untilMs?: number; seed?: number } = {}): SimResult {
  const sim = new Simulation();
  const service = new SimulatedService(sim, model, options.seed ?? 1);
  const result: SimResult = { durationMs: 0, accepted: 0, requests: 0, rejected: 0, rejectedAfterFirstSecond: 0, requestsAfterFirstSecond: 0, peakInFlight: 0, verdict: undefined };
  const perFlow = Math.ceil(rows / flows.length);
  for (const flow of flows) {
    let fresh = perFlow;
    const retries = new DueQueue<true>();
    let wakeAt = Infinity;
    const pump = (): void => {
      for (;;) {
        if (flow.verdict !== undefined) return;
        const due = retries.peekDue(sim.now) !== undefined;
        if (!due && fresh === 0) break;
        const sendAt = flow.nextSendAt(sim.now);
        if (sendAt > sim.now) {
          if (sendAt !== Infinity && sendAt < wakeAt) {
            wakeAt = sendAt;
            sim.schedule(sendAt, () => {
              wakeAt = Infinity;
              pump();
            });
          }
          return;
        }
        if (due) retries.pop();
        else fresh--;
        send();
      }
      const next = retries.nextDueAt();
      if (next !== undefined && next < wakeAt) {
        wakeAt = next;
        sim.schedule(next, () => {
          wakeAt = Infinity;
          pump();
        });
      }
    };
    const send = (): void => {
      const ticket = flow.send(sim.now);
      result.requests++;
      if (sim.now >= 1000) result.requestsAfterFirstSecond++;
      let answered = false;
      const timeoutMs = options.timeoutMs ?? 30_000;
      sim.schedule(sim.now + timeoutMs, () => {
        if (answered) return;
        answered = true;
        flow.failed(ticket, sim.now, 'timeout', new TimeoutError(timeoutMs), undefined);
        retries.push(true, sim.now + 50);
        pump();
      });
      service.request((error) => {
        if (answered) return;
        answered = true;
        result.durationMs = sim.now;
        if (error === undefined) {
          result.accepted++;
          flow.accepted(ticket, sim.now);
        } else {
          const status = (error as ApiError).status;
          result.rejected++;
          if (sim.now >= 1000) result.rejectedAfterFirstSecond++;
          const retryAfter = (error as ApiError).retryAfter;
          const retryAfterMs = retryAfter === undefined ? undefined : Number(retryAfter) * 1000;
          flow.failed(ticket, sim.now, KIND_OF[status] ?? 'transient', error, retryAfterMs);
          retries.push(true, sim.now + (retryAfterMs ?? 50));
        }
        pump();
      });
    };
    sim.schedule(0, pump);
  }
  sim.run(options.untilMs ?? 3_600_000);
  result.peakInFlight = service.peakInFlight;
  result.verdict = flows.find((flow) => flow.verdict !== undefined)?.verdict?.reason;
  if (result.verdict !== undefined) result.durationMs = sim.now;
  return result;
}
