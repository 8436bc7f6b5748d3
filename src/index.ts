/**
 * The typed client library of the Listing Publication Service, and the catalog pipeline the CLI is built on.
 * Nothing here prints, colours or exits.
 */
export * from './contract/index.js';
export * from './client/index.js';
export {
  ListingsError,
  ApiError,
  NetworkError,
  TimeoutError,
  SourceError,
  ConfigError,
  UsageError,
  formatLocation,
  type Location,
  type Setting,
} from './errors.js';
export { redact, registerSecret, maskSecret } from './secrets.js';
export { redactSourceName } from './secret-url.js';
export { VERSION } from './version.js';
export { JsonNumber, stringifyJson } from './json-number.js';
export { MAX_JSON_DEPTH, JsonDepthError, parseJsonText } from './json-text.js';

export { OPTIONS, resolveSettings, type Settings, type SettingKey, type SettingSource, type ResolvedSettings } from './config/index.js';

export * from './catalog/index.js';
export { createPreparer, prepareCatalog, fanOutDrafts, type ListingDefaults, type MarketplaceDefaults, type PreparedRow } from './prepare/index.js';
export { MissingSettingsError } from './prepare/missing-settings.js';

export { publishRows, PublishRun } from './publish/engine.js';
export type { PublishOptions, PublishEnd, ListingSender, EngineStats, EngineClock } from './publish/engine-types.js';
export { FixedLimit, type ConcurrencyLimit, type LoadSignal, type SendTicket } from './publish/flow/concurrency-limit.js';
export { AdaptiveLimit, type AdaptiveLimitOptions } from './publish/flow/adaptive-limit.js';
export { Pacer, type PacerOptions } from './publish/flow/pacer.js';
export { Breaker, type BreakerOptions, type BreakerVerdict } from './publish/flow/breaker.js';
export { OUTCOMES, type OutcomeKind, type RowOutcome } from './publish/outcome.js';
export { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from './publish/retry-policy.js';
export { parseRetryAfter } from './publish/retry-after.js';
export { RetryBudget } from './publish/retry-budget.js';
export { idempotencyKey, contentHash } from './publish/idempotency.js';
export { parseShard, inShard, type Shard } from './publish/shard.js';
export { ListingState } from './publish/listing-state.js';
export { publishCatalog, type PublishCatalogOptions } from './run/publish-catalog.js';
export { RunOutputs, type RunOutputsPlan, type OutputFailure } from './run/run-outputs.js';
export { runPublishSpec } from './run/publish-run.js';
export { publishNeedsTarget } from './run/publish-files.js';
export { ROW_ERRORS_KEPT, type PublishSpec, type PublishTargetSpec, type PublishWatcher, type PublishResult, type PublishNotice, type PublishRunning } from './run/publish-spec.js';
export type { RunSourceSpec, RunTargetSpec, RunSelectionSpec, SendingPolicy, RunOutputSpec, RunWatcher } from './run/spec.js';
export { publishVerdict, verdictOf, EXIT, type RunVerdict, type RunEnding, type RunKind, type VerdictCounts, type PublishVerdictInput, type ExitCode } from './run/verdict.js';
export { runTarget, type RunTarget, type TargetSettings } from './publish/run-target.js';
export type { JournalHeader } from './publish/journal.js';
export { streamListings, StreamRun } from './stream/stream-listings.js';
export type { StreamListingsOptions, StreamOutcome, StreamEnd, StreamStats, PartitionProgress } from './stream/stream-types.js';
export type { DeadLetter, DeadLetterSink } from './stream/dead-letter.js';
export { runValidateSpec, SHOW_ERRORS, type ValidateSpec, type ValidateWatcher, type ValidateResult, type ValidateCounts, type ValidationError } from './run/validate-run.js';
export { validateJsonOf, type ValidateJsonError } from './run/validate-json.js';
export { runStreamSpec, type StreamSpec, type StreamWatcher, type StreamResult, type StreamSummary } from './run/stream-run.js';
export { RunProgress, type RunProgressOptions, type ProgressFigures } from './run/run-progress.js';
export { sendingPolicyOf, type SendingPolicyValues } from './run/sending-policy.js';
export { runEnqueueSpec, enqueueTopic, checkEnqueueReports, type EnqueueSpec, type EnqueueWatcher, type EnqueueResult, type EnqueueSummary } from './run/enqueue-run.js';

export { openReport, SummaryCounter, type ReportWriter, type RunSummary, type RunMeta } from './report/index.js';

export { startSandbox, type Sandbox, type SandboxOptions, type SandboxStats } from './sandbox/index.js';
