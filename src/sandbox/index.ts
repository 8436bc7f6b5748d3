export { startSandbox, STATS_PATH, OUTAGE_PATH } from './server.js';
export { sandboxOptionIssues, resolveSandboxOptions, SANDBOX_DEFAULTS, type ResolvedSandboxOptions } from './options.js';
export { judgeListing, type ListingVerdict, type SandboxErrorBody } from './listing.js';
export type { Sandbox, SandboxOptions, SandboxStats, SandboxWebhookStats, SandboxRequestEvent, LatencyRange } from './types.js';
