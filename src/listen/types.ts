import type { CallbackSummary, ReceivedCallback } from './callback.js';
import type { ForwardResult } from './forward.js';
import type { SignatureFailure } from './signature.js';

/** How `listings listen` receives callbacks. Every field is optional. */
export interface ListenOptions {
  /**
   * Interface to listen on. Default `127.0.0.1`. Another than loopback (`0.0.0.0`, a LAN address) needs `secret`,
   * or `allowUnsigned`: otherwise anyone who reaches the machine could send callbacks.
   */
  host?: string;
  /** Receive unsigned callbacks on an address other machines can reach. Default false. */
  allowUnsigned?: boolean;
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
  /** Connections open at once; more are closed as they arrive. Default 256. */
  maxConnections?: number;
  /**
   * Seconds a request may take to arrive whole, headers and body (a client that trickles its bytes is cut off with
   * 408), and that an idle connection is kept. Default 15.
   */
  requestTimeoutSeconds?: number;
  /** Called for every callback received and every forward done. */
  onEvent?: (event: ListenEvent) => void;
}

/** What was done with a callback: kept (and forwarded, recorded), answered as a duplicate, or refused. */
export type CallbackOutcome = 'accepted' | 'duplicate' | 'rejected';

/** Why a callback was refused. */
export type RejectReason = SignatureFailure | 'too_large' | 'too_deep' | 'wrong_path' | 'wrong_method' | 'recording_behind';

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
  /** Callbacks refused: bad or missing signature, too large, nested too deep, wrong path. */
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
  /** A URL that reaches the listener from this machine, e.g. `http://127.0.0.1:8787/` (loopback for a wildcard host). */
  url: string;
  /** The address really bound, e.g. `0.0.0.0` or `::` (every interface), `127.0.0.1`, and its port. */
  address: { host: string; port: number };
  /** True when only this machine can reach the listener. */
  loopback: boolean;
  stats(): ListenStats;
  /** Stop receiving; wait for the forwards under way and the recording to be flushed. */
  close(): Promise<void>;
}
