import type { PresetName } from '../../catalog/presets/index.js';
import type { FaultFlags } from './open-endpoint.js';

/** The flags of `listings stream`, as commander collects them. */
export interface StreamFlags extends FaultFlags {
  group: string;
  deadLetter?: string;
  from: 'earliest' | 'latest';
  map: string[];
  mapping?: string;
  listSeparator?: string;
  preset?: PresetName;
  sandbox?: boolean;
  rate?: number;
  maxAttempts: number;
  timeout?: number;
  connectTimeout?: number;
  giveUpAfter?: number;
  kafkaTls?: boolean;
  maxBuffered: number;
  commitInterval: number;
  sessionTimeout: number;
  drainTimeout: number;
  json?: boolean;
  quiet?: boolean;
  statusInterval: number;
  logFormat: 'human' | 'json';
  /** `--admin-listen`: where /healthz, /readyz and /metrics are served. */
  adminListen?: string;
}
