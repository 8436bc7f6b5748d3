import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signing scheme of webhook callbacks, shared by the sandbox (which signs) and `listings listen` (which
 * verifies). The service documents none, so this one is ours, in the manner of Stripe's: the header
 * `Listings-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. Several `v1=` entries may be
 * given (a secret being rotated); one match is enough.
 */
export const SIGNATURE_HEADER = 'Listings-Signature';
/** Seconds a signature's timestamp may differ from the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a signature was refused. */
export type SignatureFailure = 'missing' | 'malformed' | 'expired' | 'mismatch';

/** What {@link verifySignature} found. */
export type SignatureVerdict = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

/** The hex HMAC-SHA256 of `${timestamp}.${body}` under `secret`. */
export function signatureOf(secret: string, timestamp: number, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value for `body` signed at `timestamp` (unix seconds; default now). */
export function signPayload(secret: string, body: Uint8Array | string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`;
}

/**
 * `t=...,v1=...,v1=...` -> its timestamp and signatures; undefined when it is not of that form, or names two
 * timestamps (which one was signed is not for the header's sender to leave open).
 */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't' && timestamp !== undefined) return undefined;
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

/** Options of {@link verifySignature}. */
export interface VerifyOptions {
  /** Seconds the timestamp may be away from now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock, in unix seconds. Default: now. */
  now?: number;
}

/**
 * Check a signature header against the raw body: missing, malformed, outside the tolerance, or no `v1` matching.
 * The comparison takes the same time whatever the signature's content.
 */
export function verifySignature(header: string | undefined, body: Uint8Array | string, secret: string, options: VerifyOptions = {}): SignatureVerdict {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(header);
  if (parsed === undefined) return { ok: false, reason: 'malformed' };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return { ok: false, reason: 'expired' };
  const expected = Buffer.from(signatureOf(secret, parsed.timestamp, body), 'hex');
  let matched = false;
  // Every entry is compared (no early exit), each in constant time: both are 32 bytes, checked by the pattern above.
  for (const signature of parsed.signatures) {
    if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'mismatch' };
}
