import type { CallbackSummary, ReceivedCallback } from './callback.js';
import type { ForwardResult } from './forward.js';
import type { SignatureFailure } from './signature.js';

/** How `listings listen` receives callbacks. Every field is optional. */
export interface ListenOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 8787. */
  port?: number;
  /** The path callbacks arrive at; `/` (the default) takes every path, another one that path and those below it. */
  path?: string;
  /** Send each accepted callback on to this URL: same method, headers (without credentials) and body bytes. */
  forwardTo?: string;
  /** Append each accepted callback to this NDJSON file, body kept byte for byte. */
  recordFile?: string;
  /** Verify each callback's signature with this secret (HMAC-SHA256); unsigned or badly signed ones get 401. */
  secret?: string;
  /** The header holding the signature. Default `Listings-Signature`. */
  signatureHeader?: string;
  /** Seconds a signature's timestamp may be away from now. Default 300. */
  toleranceSeconds?: number;
  /** Largest body accepted; larger ones get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Event ids remembered to answer a redelivery once. Default 10,000. */
  dedupeCapacity?: number;
  /** Called for every callback received and every forward done. */
  onEvent?: (event: ListenEvent) => void;
}

/** What was done with a callback: kept (and forwarded, recorded), answered as a duplicate, or refused. */
export type CallbackOutcome = 'accepted' | 'duplicate' | 'rejected';

/** Why a callback was refused. */
export type RejectReason = SignatureFailure | 'too_large' | 'wrong_path';

/** One callback, as it arrived. */
export interface CallbackEvent {
  type: 'callback';
  /** 1, 2, 3... in order of arrival; a forward event names the callback it belongs to by this. */
  seq: number;
  callback: ReceivedCallback;
  summary: CallbackSummary;
  outcome: CallbackOutcome;
  reason?: RejectReason;
  /** The status answered. */
  status: number;
  /** True when a forward event will follow. */
  forwarding: boolean;
}

/** A forward done (or failed). */
export interface ForwardEvent {
  type: 'forward';
  seq: number;
  result: ForwardResult;
}

/** The recording could not be written: recording stops, receiving goes on. */
export interface RecordErrorEvent {
  type: 'record_error';
  message: string;
}

export type ListenEvent = CallbackEvent | ForwardEvent | RecordErrorEvent;

/** The counts of a listener. */
export interface ListenStats {
  /** Callbacks accepted (first deliveries). */
  received: number;
  /** Callbacks refused: bad or missing signature, too large, wrong path. */
  rejected: number;
  /** Redeliveries of an event already received, answered 2xx and not kept again. */
  duplicates: number;
  /** Forwards answered 2xx. */
  forwarded: number;
  /** Forwards that failed: not 2xx, or not sent. */
  forward_failed: number;
}

/** A running listener. */
export interface Listener {
  /** Where callbacks are received, e.g. `http://127.0.0.1:8787/`. */
  url: string;
  stats(): ListenStats;
  /** Stop receiving; wait for the forwards under way and the recording to be flushed. */
  close(): Promise<void>;
}
