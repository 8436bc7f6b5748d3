import type { CatalogFlags } from '../catalog-options.js';
import type { FaultFlags } from './open-endpoint.js';

/** The flags of `listings publish`, as commander collects them. */
export interface PublishFlags extends CatalogFlags, FaultFlags {
  concurrency?: number;
  rate?: number;
  maxAttempts: number;
  timeout?: number;
  connectTimeout?: number;
  giveUpAfter?: number;
  maxErrors?: number;
  dryRun?: boolean;
  changedOnly?: boolean;
  state?: string;
  shard?: string;
  /** A path, or false for --no-journal. */
  journal?: string | false;
  resume?: boolean;
  retryFailed?: string;
  report: string[];
  json?: boolean;
  quiet?: boolean;
  /** `--log-format`: human lines (default) or NDJSON events on stderr. */
  logFormat?: 'human' | 'json';
  /** A line (or event) per request. */
  verbose?: boolean;
  /** Settings, timings, and every error's cause and stack. */
  debug?: boolean;
  sandbox?: boolean;
}
