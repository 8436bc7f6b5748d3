import { ConfigError } from '../errors.js';
import type { FieldIssue } from '../contract/index.js';
import type { LatencyRange, SandboxOptions } from './types.js';

/** The options with every default applied. */
export interface ResolvedSandboxOptions {
  host: string;
  port: number;
  apiKey: string;
  savedDefaults: boolean;
  latency: LatencyRange | undefined;
  failRate: number;
  failStatus: number | undefined;
  rateLimit: number | undefined;
  rateBurst: number | undefined;
  retryAfterSeconds: number;
  capacity: number | undefined;
  /** Infinity when unlimited. */
  queue: number;
  dropRate: number;
  spikeRate: number;
  spikeMs: number;
  seed: number | undefined;
  maxBodyBytes: number;
  dataFile: string | undefined;
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
  webhookAttempts: number;
  webhookBackoffMs: number;
}

export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  port: 4010,
  apiKey: 'sandbox-key',
  retryAfterSeconds: 1,
  maxBodyBytes: 1024 * 1024,
  spikeMs: 2000,
  webhookAttempts: 5,
  webhookBackoffMs: 250,
} as const;

function httpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const isShare = (value: number): boolean => Number.isFinite(value) && value >= 0 && value <= 1;
const isCount = (value: number, min: number, max = Number.MAX_SAFE_INTEGER): boolean =>
  Number.isInteger(value) && value >= min && value <= max;

/**
 * What is wrong with these options, one issue per option (path = the option's name). The CLI maps each name to
 * its flag, the library throws them as one ConfigError: the ranges live here only.
 */
export function sandboxOptionIssues(options: SandboxOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const check = (path: keyof SandboxOptions, ok: boolean, message: string): void => {
    if (!ok) issues.push({ path, message });
  };
  const { latency } = options;
  if (options.host !== undefined) check('host', options.host.trim() !== '', 'must not be empty');
  if (options.port !== undefined) check('port', isCount(options.port, 0, 65535), 'must be a whole number from 0 to 65535');
  if (options.apiKey !== undefined) check('apiKey', options.apiKey.length > 0 && !/\s/.test(options.apiKey), 'must be non-empty, without spaces');
  if (latency !== undefined) {
    const { min, max } = typeof latency === 'number' ? { min: latency, max: latency } : latency;
    check('latency', Number.isFinite(min) && Number.isFinite(max) && min >= 0 && max >= min, 'must be MS or MIN-MAX ms, with 0 <= MIN <= MAX');
  }
  if (options.failRate !== undefined) check('failRate', isShare(options.failRate), 'must be a share from 0 to 1');
  if (options.failStatus !== undefined) check('failStatus', isCount(options.failStatus, 400, 599), 'must be an HTTP error status from 400 to 599');
  if (options.rateLimit !== undefined) check('rateLimit', Number.isFinite(options.rateLimit) && options.rateLimit > 0, 'must be a number of requests per second > 0');
  if (options.rateBurst !== undefined) {
    const whole = isCount(options.rateBurst, 1);
    check('rateBurst', whole && options.rateLimit !== undefined, whole ? 'applies only with a rate limit' : 'must be a whole number of requests >= 1');
  }
  if (options.retryAfterSeconds !== undefined) check('retryAfterSeconds', isCount(options.retryAfterSeconds, 0), 'must be a whole number of seconds >= 0');
  if (options.capacity !== undefined) check('capacity', isCount(options.capacity, 1), 'must be a whole number of requests >= 1');
  if (options.queue !== undefined) {
    const whole = options.queue === Number.POSITIVE_INFINITY || isCount(options.queue, 0);
    check('queue', whole && options.capacity !== undefined, whole ? 'applies only with a capacity' : 'must be a whole number of requests >= 0');
  }
  if (options.dropRate !== undefined) check('dropRate', isShare(options.dropRate), 'must be a share from 0 to 1');
  if (options.spikeRate !== undefined) check('spikeRate', isShare(options.spikeRate), 'must be a share from 0 to 1');
  if (options.spikeMs !== undefined) check('spikeMs', Number.isFinite(options.spikeMs) && options.spikeMs >= 0, 'must be a number of ms >= 0');
  if (options.seed !== undefined) check('seed', Number.isSafeInteger(options.seed), 'must be a whole number');
  if (options.maxBodyBytes !== undefined) check('maxBodyBytes', isCount(options.maxBodyBytes, 1), 'must be a whole number of bytes >= 1');
  if (options.dataFile !== undefined) check('dataFile', options.dataFile.trim() !== '', 'must be a file path');
  if (options.webhookUrl !== undefined) check('webhookUrl', httpUrl(options.webhookUrl), 'must be an http:// or https:// URL');
  if (options.webhookSecret !== undefined) check('webhookSecret', options.webhookSecret !== '' && options.webhookUrl !== undefined, options.webhookSecret === '' ? 'must not be empty' : 'applies only with a webhook URL');
  if (options.webhookAttempts !== undefined) check('webhookAttempts', isCount(options.webhookAttempts, 1, 20), 'must be a whole number from 1 to 20');
  if (options.webhookBackoffMs !== undefined) check('webhookBackoffMs', Number.isFinite(options.webhookBackoffMs) && options.webhookBackoffMs >= 0, 'must be a number of ms >= 0');
  return issues;
}

/** Validate and apply defaults; throws ConfigError naming every bad option. */
export function resolveSandboxOptions(options: SandboxOptions): ResolvedSandboxOptions {
  const issues = sandboxOptionIssues(options);
  if (issues.length > 0) {
    throw new ConfigError(`invalid sandbox options: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`);
  }
  const { latency } = options;
  return {
    host: options.host ?? SANDBOX_DEFAULTS.host,
    port: options.port ?? SANDBOX_DEFAULTS.port,
    apiKey: options.apiKey ?? SANDBOX_DEFAULTS.apiKey,
    savedDefaults: options.savedDefaults ?? false,
    latency: typeof latency === 'number' ? { min: latency, max: latency } : latency,
    failRate: options.failRate ?? 0,
    failStatus: options.failStatus,
    rateLimit: options.rateLimit,
    rateBurst: options.rateBurst,
    retryAfterSeconds: options.retryAfterSeconds ?? SANDBOX_DEFAULTS.retryAfterSeconds,
    capacity: options.capacity,
    queue: options.queue ?? Number.POSITIVE_INFINITY,
    dropRate: options.dropRate ?? 0,
    spikeRate: options.spikeRate ?? 0,
    spikeMs: options.spikeMs ?? SANDBOX_DEFAULTS.spikeMs,
    seed: options.seed,
    maxBodyBytes: options.maxBodyBytes ?? SANDBOX_DEFAULTS.maxBodyBytes,
    dataFile: options.dataFile,
    webhookUrl: options.webhookUrl,
    webhookSecret: options.webhookSecret,
    webhookAttempts: options.webhookAttempts ?? SANDBOX_DEFAULTS.webhookAttempts,
    webhookBackoffMs: options.webhookBackoffMs ?? SANDBOX_DEFAULTS.webhookBackoffMs,
  };
}
