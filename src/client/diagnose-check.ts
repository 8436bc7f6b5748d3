import type { NameSetting } from '../errors.js';

/** What the steps of a diagnosis share: the result of one check, the options, a failed connection in words. */

/** The result of one check of a diagnosis: what `listings doctor` shows one line for (and `listings init` ends with). */
export interface Check {
  /** Short name, e.g. `connect`. */
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  message: string;
  /** What to do about a failure or a warning. */
  fix?: string;
  /** For a failure: whether the configuration (exit 2) or the service (exit 3) is at fault. */
  kind?: 'config' | 'service';
}

/** What {@link diagnoseService} checks, and how. */
export interface DiagnoseOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; without one the request goes without, and a 401 is expected. */
  apiKey: string | undefined;
  /** The variable the key comes from, for messages. */
  apiKeyEnv: string;
  allowInsecureHttp: boolean;
  /** Time limit of each network step (lookup, connect, handshake, answer), in ms. */
  timeoutMs: number;
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * How the texts name a setting or a library function (`allowInsecureHttp`, `startSandbox`): by these names unless
   * given; the CLI passes its flags and commands (cliName).
   */
  name?: NameSetting;
}

/** Node's, OpenSSL's and the resolver's codes in words. */
const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'the name does not resolve',
  EAI_AGAIN: 'the DNS lookup failed (temporarily)',
  EAI_FAIL: 'the DNS lookup failed',
  EAI_NONAME: 'the name does not resolve',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer of the certificate is not trusted here',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet (or the local clock is behind)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  EPROTO: 'the TLS handshake failed',
  ERR_ASSERTION: 'the answer breaks the HTTP/1.1 protocol',
};

/** The code of an error, or of the first of its causes that has one. */
export function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A code in words, when it is one of the known ones. */
export function codeText(code: string): string | undefined {
  return CODE_TEXT[code];
}

/** What went wrong, in words: `connection refused (ECONNREFUSED)`, else the error's own message with its code. */
export function describe(error: unknown): string {
  const code = codeOf(error);
  const text = code === undefined ? undefined : codeText(code);
  if (text !== undefined) return `${text} (${code})`;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${message} (${code})`;
}

/** What to do about a certificate that is not trusted here. */
export const TRUST_FIX =
  "if the service uses a private CA (or a self-signed certificate), point NODE_EXTRA_CA_CERTS at its certificate (PEM); otherwise check the host name in base_url";

/** The host and port a connection goes to: the service's, or the proxy's. */
export interface Hop {
  host: string;
  port: number;
  /** `api.example.com:443`, or `the proxy proxy:3128`. */
  shown: string;
  /** The variable that names the proxy, when the hop is one. */
  proxyFrom?: string;
}

/** A check not taken, and why. */
export const skipped = (name: string, why: string): Check => ({ name, status: 'skip', message: `not checked: ${why}` });
