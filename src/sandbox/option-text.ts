import { registerSecret } from '../secrets.js';
import { SANDBOX_DEFAULTS } from './options.js';
import type { LatencyRange, SandboxOptions } from './types.js';

/** The sandbox's options as text: read from text (a command line's), and the faults they inject in words. */

/** The numeric options, each given as a decimal. */
export type NumericOption = 'port' | 'failRate' | 'failStatus' | 'rateLimit' | 'retryAfterSeconds' | 'capacity' | 'queue' | 'dropRate' | 'spikeRate' | 'spikeMs' | 'seed' | 'maxBodyBytes' | 'webhookAttempts' | 'webhookBackoffMs';

/** The options as text: a number as a decimal, the latency as MS or MIN-MAX; the rest as they are. */
export type SandboxOptionTexts = Partial<Record<NumericOption | 'latency', string>> & Pick<SandboxOptions, 'host' | 'apiKey' | 'savedDefaults' | 'dataFile' | 'webhookUrl' | 'webhookSecret'>;

const NUMERIC: readonly NumericOption[] = ['port', 'failRate', 'failStatus', 'rateLimit', 'retryAfterSeconds', 'capacity', 'queue', 'dropRate', 'spikeRate', 'spikeMs', 'seed', 'maxBodyBytes', 'webhookAttempts', 'webhookBackoffMs'];

/** A decimal number, or NaN: `Number('')` would be 0 and `Number('0x10')` 16. */
function decimal(raw: string): number {
  return /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(raw) ? Number(raw) : Number.NaN;
}

/** `20` -> 20 ms; `10-50` -> between 10 and 50 ms. */
function latency(raw: string): number | LatencyRange {
  const range = /^\s*([\d.]+)\s*-\s*([\d.]+)\s*$/.exec(raw);
  return range ? { min: decimal(range[1] ?? ''), max: decimal(range[2] ?? '') } : decimal(raw);
}

/**
 * The options the texts give, read but not checked (sandboxOptionIssues does that: a text that is not a number is
 * NaN, out of every range). The webhook secret is registered as a secret.
 */
export function sandboxOptionsFromText(texts: SandboxOptionTexts): SandboxOptions {
  const options: SandboxOptions = {};
  for (const option of NUMERIC) {
    const raw = texts[option];
    if (raw !== undefined) options[option] = decimal(raw);
  }
  if (texts.host !== undefined) options.host = texts.host;
  if (texts.apiKey !== undefined) options.apiKey = texts.apiKey;
  if (texts.savedDefaults) options.savedDefaults = true;
  if (texts.latency !== undefined) options.latency = latency(texts.latency);
  if (texts.dataFile !== undefined) options.dataFile = texts.dataFile;
  if (texts.webhookUrl !== undefined) options.webhookUrl = texts.webhookUrl;
  if (texts.webhookSecret !== undefined) {
    registerSecret(texts.webhookSecret);
    options.webhookSecret = texts.webhookSecret;
  }
  return options;
}

/** The faults the options inject, in words (`latency 10-50 ms, fail rate 0.2 (HTTP 503)`); undefined for none. */
export function describeFaults(options: SandboxOptions): string | undefined {
  const parts: string[] = [];
  const { latency: delay } = options;
  if (delay !== undefined) parts.push(`latency ${typeof delay === 'number' ? delay : `${delay.min}-${delay.max}`} ms`);
  if (options.failRate) parts.push(`fail rate ${options.failRate}${options.failStatus ? ` (HTTP ${options.failStatus})` : ''}`);
  if (options.rateLimit !== undefined) parts.push(`rate limit ${options.rateLimit}/s (Retry-After ${options.retryAfterSeconds ?? SANDBOX_DEFAULTS.retryAfterSeconds})`);
  if (options.capacity !== undefined) parts.push(`capacity ${options.capacity} (queue ${options.queue ?? 'unlimited'})`);
  if (options.dropRate) parts.push(`drop rate ${options.dropRate}`);
  if (options.spikeRate) parts.push(`latency spikes of ${options.spikeMs ?? SANDBOX_DEFAULTS.spikeMs} ms at rate ${options.spikeRate}`);
  if (options.seed !== undefined) parts.push(`seed ${options.seed}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}
