import { redactSourceName } from '../secret-url.js';
import type { RunStart } from './log-events.js';

/** What `run_start` reads of a run's resolved settings: the profile, and the listing and sending settings. */
export interface RunStartSettings {
  profile: string;
  settings: { marketplace?: string | undefined; shape?: string | undefined; concurrency?: number | undefined; max_concurrency?: number | undefined };
}

/** The sending options (`publish`, `stream`) that `run_start` tells, as given (a timeout in ms, give-up in s). */
export interface SendingValues {
  rate?: number | undefined;
  maxAttempts: number;
  timeout?: number | undefined;
  connectTimeout?: number | undefined;
  giveUpAfter?: number | undefined;
}

const given = (value: unknown): unknown => value ?? null;

/** How the rows are sent, as `run_start` tells it in its settings (publish and stream). */
export function sendingSettings(values: SendingValues, loaded: RunStartSettings): Record<string, unknown> {
  const { settings } = loaded;
  return {
    concurrency: given(settings.concurrency),
    max_concurrency: given(settings.max_concurrency),
    rate: given(values.rate),
    max_attempts: values.maxAttempts,
    timeout_ms: given(values.timeout),
    connect_timeout_ms: given(values.connectTimeout),
    give_up_after_s: given(values.giveUpAfter),
  };
}

/**
 * `run_start` of any command: where to (`origin`: the host, never the key; none when nothing is sent) and the
 * settings that shape the run, the same fields for publish, validate and stream.
 */
export function runStartOf(command: RunStart['command'], sources: string[], loaded: RunStartSettings, run: { origin: string | undefined; sandbox: boolean; dryRun: boolean }, settings: Record<string, unknown>): RunStart {
  return {
    command,
    sources,
    profile: loaded.profile,
    target: run.origin === undefined ? undefined : new URL(run.origin).host,
    sandbox: run.sandbox,
    marketplace: loaded.settings.marketplace,
    shape: loaded.settings.shape,
    dryRun: run.dryRun,
    settings,
  };
}

/** The options of a publish that `run_start` tells, as given (the CLI's flags have these names). */
export interface PublishStartValues extends SendingValues {
  sandbox?: boolean | undefined;
  dryRun?: boolean | undefined;
  maxErrors?: number | undefined;
  shard?: string | undefined;
  changedOnly?: boolean | undefined;
  resume?: boolean | undefined;
  retryFailed?: string | undefined;
  /** A path, or false: none kept. */
  journal?: string | false | undefined;
  report: string[];
}

/** `run_start` of a publish. */
export function publishStartOf(sources: string[], values: PublishStartValues, loaded: RunStartSettings, origin: string | undefined): RunStart {
  return runStartOf('publish', sources, loaded, { origin, sandbox: values.sandbox === true, dryRun: values.dryRun === true }, {
    ...sendingSettings(values, loaded),
    max_errors: given(values.maxErrors),
    shard: given(values.shard),
    changed_only: values.changedOnly === true,
    resume: values.resume === true,
    retry_failed: given(values.retryFailed),
    journal: values.journal !== false,
    report: values.report,
  });
}

/** The options of a stream that `run_start` tells, as given: the Kafka timings in ms, the drain in s. */
export interface StreamStartValues extends SendingValues {
  sandbox?: boolean | undefined;
  group: string;
  from: string;
  /** Where failed and invalid messages go (its credentials masked in the event). */
  deadLetter: string;
  maxBuffered: number;
  commitInterval: number;
  sessionTimeout: number;
  drainTimeout: number;
}

/** `run_start` of a stream of `topic` (`kafka://BROKERS/TOPIC`). */
export function streamStartOf(topic: string, values: StreamStartValues, loaded: RunStartSettings, origin: string | undefined): RunStart {
  return runStartOf('stream', [topic], loaded, { origin, sandbox: values.sandbox === true, dryRun: false }, {
    ...sendingSettings(values, loaded),
    group: values.group,
    from: values.from,
    dead_letter: redactSourceName(values.deadLetter),
    max_buffered: values.maxBuffered,
    commit_interval_ms: values.commitInterval,
    session_timeout_ms: values.sessionTimeout,
    drain_timeout_s: values.drainTimeout,
  });
}
