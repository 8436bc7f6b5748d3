import { ConfigError } from '../errors.js';
import type { FieldIssue } from '../contract/issues.js';
import { isLoopbackHost } from './loopback.js';
import { MAX_RECORDED_BODY_BYTES, MAX_RECORDING_LINE_BYTES } from './recording.js';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER } from './signature.js';
import type { ListenOptions } from './types.js';

export const LISTEN_DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  path: '/',
  signatureHeader: SIGNATURE_HEADER,
  toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
  maxBodyBytes: 1024 * 1024,
  dedupeCapacity: 10_000,
  maxConnections: 256,
  requestTimeoutSeconds: 15,
} as const;

export type ResolvedListenOptions = Required<Omit<ListenOptions, 'forwardTo' | 'recordFile' | 'secret' | 'onEvent' | 'allowUnsigned'>> &
  Pick<ListenOptions, 'forwardTo' | 'recordFile' | 'secret'>;

const whole = (value: number, min: number, max = Number.MAX_SAFE_INTEGER): boolean => Number.isInteger(value) && value >= min && value <= max;

/** An http(s) URL, or undefined. */
export function httpUrlIssue(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'must be an http:// or https:// URL';
  } catch {
    return 'must be an absolute URL, e.g. http://127.0.0.1:3000/webhooks';
  }
}

/** A URL path as a request spells it (RFC 3986): what a request target holds, other characters percent-encoded. */
const REQUEST_PATH = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

/**
 * Why `path` can never be the path of a request, or undefined: `/café` or `/a b` arrives as `/caf%C3%A9`, `/a%20b`
 * (a control character not at all), so such a path would answer every callback 404.
 */
function pathIssue(path: string): string | undefined {
  if (!path.startsWith('/') || /[?#]/.test(path)) return 'must start with / and hold no ? or #';
  if (REQUEST_PATH.test(path)) return undefined;
  let encoded: string | undefined;
  try {
    encoded = encodeURI(path);
  } catch {
    // a lone surrogate: no encoding to suggest
  }
  const as = encoded !== undefined && REQUEST_PATH.test(encoded) ? `: write it as a request spells it, ${encoded}` : '';
  return `must be a URL path as requests spell it (letters, digits, - . _ ~ ! $ & ' ( ) * + , ; = : @ / and %XX); no request would ever match it${as}`;
}

/** What is wrong with these options, one issue per option (path = the option's name). */
export function listenOptionIssues(options: ListenOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const check = (path: keyof ListenOptions, ok: boolean, message: string): void => {
    if (!ok) issues.push({ path, message });
  };
  if (options.host !== undefined) check('host', options.host.trim() !== '', 'must not be empty');
  if (options.port !== undefined) check('port', whole(options.port, 0, 65535), 'must be a whole number from 0 to 65535');
  if (options.path !== undefined) {
    const issue = pathIssue(options.path);
    check('path', issue === undefined, issue ?? '');
  }
  if (options.forwardTo !== undefined) {
    const issue = httpUrlIssue(options.forwardTo);
    check('forwardTo', issue === undefined, issue ?? '');
  }
  if (options.recordFile !== undefined) check('recordFile', options.recordFile.trim() !== '', 'must be a file path');
  if (options.secret !== undefined) check('secret', options.secret !== '', 'must not be empty');
  if (options.signatureHeader !== undefined) check('signatureHeader', /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(options.signatureHeader), 'must be an HTTP header name');
  if (options.toleranceSeconds !== undefined) check('toleranceSeconds', whole(options.toleranceSeconds, 1), 'must be a whole number of seconds >= 1');
  if (options.maxBodyBytes !== undefined) check('maxBodyBytes', whole(options.maxBodyBytes, 1), 'must be a whole number of bytes >= 1');
  if (options.maxBodyBytes !== undefined && options.recordFile !== undefined && whole(options.maxBodyBytes, 1)) {
    check('maxBodyBytes', options.maxBodyBytes <= MAX_RECORDED_BODY_BYTES, `must be at most ${MAX_RECORDED_BODY_BYTES} when recording: a larger body could make a line longer than the ${MAX_RECORDING_LINE_BYTES / 1024 / 1024} MiB a replay reads`);
  }
  if (options.dedupeCapacity !== undefined) check('dedupeCapacity', whole(options.dedupeCapacity, 1), 'must be a whole number >= 1');
  if (options.maxConnections !== undefined) check('maxConnections', whole(options.maxConnections, 1, 1_000_000), 'must be a whole number from 1 to 1000000');
  if (options.requestTimeoutSeconds !== undefined) check('requestTimeoutSeconds', whole(options.requestTimeoutSeconds, 1, 3600), 'must be a whole number of seconds from 1 to 3600');
  if (options.host !== undefined && options.secret === undefined && options.allowUnsigned !== true && !isLoopbackHost(options.host)) {
    issues.push({ path: 'host', message: `${options.host} is reachable from other machines: callbacks received there must be signed (give a secret), or unsigned ones allowed explicitly` });
  }
  return issues;
}

/** Validate and apply defaults; throws ConfigError naming every bad option. */
export function resolveListenOptions(options: ListenOptions): ResolvedListenOptions {
  const issues = listenOptionIssues(options);
  if (issues.length > 0) throw new ConfigError(`invalid listen options: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`);
  const resolved: ResolvedListenOptions = {
    host: options.host ?? LISTEN_DEFAULTS.host,
    port: options.port ?? LISTEN_DEFAULTS.port,
    path: options.path ?? LISTEN_DEFAULTS.path,
    signatureHeader: options.signatureHeader ?? LISTEN_DEFAULTS.signatureHeader,
    toleranceSeconds: options.toleranceSeconds ?? LISTEN_DEFAULTS.toleranceSeconds,
    maxBodyBytes: options.maxBodyBytes ?? LISTEN_DEFAULTS.maxBodyBytes,
    dedupeCapacity: options.dedupeCapacity ?? LISTEN_DEFAULTS.dedupeCapacity,
    maxConnections: options.maxConnections ?? LISTEN_DEFAULTS.maxConnections,
    requestTimeoutSeconds: options.requestTimeoutSeconds ?? LISTEN_DEFAULTS.requestTimeoutSeconds,
  };
  if (options.forwardTo !== undefined) resolved.forwardTo = options.forwardTo;
  if (options.recordFile !== undefined) resolved.recordFile = options.recordFile;
  if (options.secret !== undefined) resolved.secret = options.secret;
  return resolved;
}
