/**
 * The one module that handles secrets. Every secret the process learns is registered here, and every text that
 * leaves the process (messages, reports, journals) can be passed through `redact`.
 */
import { MASK, redactUrlsIn } from './secret-url.js';

export { MASK };

const secrets = new Set<string>();

/** Remember a secret so that `redact` removes it. Very short values are not registered (they would mask noise). */
export function registerSecret(value: string | undefined): void {
  if (value === undefined || value.length < 4) return;
  secrets.add(value);
  // As it appears in a URL (a session token holds `/`, `+` and `=`), or in a JSON body that escapes its `/`.
  const encoded = encodeURIComponent(value);
  if (encoded !== value) secrets.add(encoded);
  if (value.includes('/')) secrets.add(value.replaceAll('/', '\\/'));
}

/**
 * Whether a text given as the NAME of a variable looks like a key pasted in its place: a provider's key prefix
 * (`sk_live_`, `pk_test_`), or a long run of mixed case and digits as no one names a variable.
 */
export function looksLikeKey(name: string): boolean {
  if (/^[a-z]{2,4}_(live|test|prod)_/i.test(name)) return true;
  return name.length >= 20 && /[a-z]/.test(name) && /[A-Z]/.test(name) && /[0-9]/.test(name);
}

/**
 * Why a secret (an API key, a source header's value) cannot be sent in an HTTP header, or undefined when it can: a
 * control character (a line break copied with it) or one past Latin-1, which no header carries. Names the character
 * only when it is a control, so no part of the secret itself is shown.
 */
export function headerValueFault(key: string): string | undefined {
  const at = key.search(/[^\t\u0020-\u007e\u0080-\u00ff]|[\u007f-\u009f]/);
  if (at < 0) return undefined;
  const code = key.charCodeAt(at);
  const what = code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})` : 'a character past Latin-1';
  return `holds ${what}, which no HTTP header can carry`;
}

/**
 * Every registered secret replaced by `****`, and every URL's credentials masked (its userinfo, and the values of
 * its secret-looking parameters: `X-Amz-Signature=****`, `token=****`; see secret-url.ts). For every text that
 * leaves the process: lines on the terminal, report cells, messages.
 */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  // Most text has no `=` and no URL: two checks are all most calls pay (this runs for every cell of a report).
  return out.includes('=') || out.includes(':/') || out.includes(':\\') ? redactUrlsIn(out) : out;
}

/** The shortest start of a secret masked at the end of a cut text: fewer characters than maskSecret shows are no leak. */
const MIN_PART = 4;

/**
 * `redact` for a text that was cut off at its end (a server's body read only so far): a secret that straddles the cut
 * is there only in part, which `redact` cannot recognise, so an end that starts a secret is masked too.
 */
export function redactCut(text: string): string {
  let out = redact(text);
  for (const secret of secrets) {
    for (let part = Math.min(secret.length - 1, out.length); part >= MIN_PART; part--) {
      if (out.endsWith(secret.slice(0, part))) {
        out = `${out.slice(0, out.length - part)}${MASK}`;
        break;
      }
    }
  }
  return out;
}

/** The variables of the environment that hold secrets whatever the command: the AWS credentials. */
const SECRET_VARIABLES = ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_SECURITY_TOKEN'];

/**
 * Register the secrets the environment holds under well-known names (the AWS secret key and session token), so
 * that a store or service that echoes them never gets them shown. The API key is registered where it is read.
 */
export function registerEnvironmentSecrets(env: Record<string, string | undefined> = process.env): void {
  for (const name of SECRET_VARIABLES) registerSecret(env[name]);
}

/** `sk_live_abcdef` -> `sk_****` : enough to recognise which key, never enough to use it. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? MASK : `${value.slice(0, 3)}${MASK}`;
}
