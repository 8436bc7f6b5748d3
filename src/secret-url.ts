/**
 * The credentials a URL can carry, masked: its userinfo (`user:password@`) and the values of its secret-looking query
 * (and fragment) parameters. Pure, so that a source's name, the identity of its journal and any text that leaves the
 * process are all redacted by the same rule. The parameter names stay, so a reader still sees which URL it was.
 */

export const MASK = '****';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/**
 * A special scheme mistyped with one slash or with backslashes (`https:/user:pass@host/x`, `http:\\user:pass@host`):
 * not a URL to this tool (it is read as a file name), but the URL parser and a reader take it for one, so its
 * userinfo is masked as a URL's is.
 */
const MISTYPED_SCHEME = /^(?:https?|wss?|ftp|s3):[/\\]+/i;
/** Schemes whose authority also ends at a `\` (the URL standard's "special" schemes). */
const SPECIAL = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);

/** Parameter names (lower case, without `-`, `_`, `.` or spaces) that hold a credential. */
const SECRET_NAMES = new Set(['code', 'session', 'sid', 'pass', 'pwd', 'otp', 'ticket', 'bearer']);
/** ... and the endings that make one: `access_token`, `X-Amz-Signature`, `X-Amz-Credential`, `api-key`, `sig`. */
const SECRET_ENDINGS = /(?:token|secret|password|passwd|passphrase|signature|sig|key|auth|authorization|credentials?|jwt|sessionid)$/;
/**
 * Parameters that are no secret but change with every signing of the same URL: every AWS SigV4 and Google Cloud
 * Storage signing parameter (`X-Amz-Date`, `X-Amz-Expires`...), an Azure SAS token's start and expiry (`st`, `se`,
 * `skt`, `ske`), a SigV2 or CloudFront URL's `Expires` and `Policy`.
 */
const VOLATILE_NAMES = new Set(['expires', 'policy', 'se', 'st', 'skt', 'ske']);
const VOLATILE_PREFIXES = /^x(?:amz|goog)/;

/** A parameter's name as compared: percent-decoded, in lower case, letters and digits only. */
function bareName(name: string): string {
  let decoded = name.replaceAll('+', ' ');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // a malformed escape: judged as written
  }
  return decoded.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Whether a query parameter's value is a secret, by its name: case-insensitive, percent-encoded or not. */
export function isSecretParam(name: string): boolean {
  const bare = bareName(name);
  return SECRET_NAMES.has(bare) || SECRET_ENDINGS.test(bare);
}

/** Whether a parameter is a secret or changes at each signing: what tells a source apart leaves both out. */
function isSecretOrVolatileParam(name: string): boolean {
  const bare = bareName(name);
  return isSecretParam(name) || VOLATILE_NAMES.has(bare) || VOLATILE_PREFIXES.test(bare);
}

type ParamTest = (name: string) => boolean;

/** `a=1&token=x;sig=y` -> `a=1&token=****;sig=****`. A value already masked stays as it is (with what follows it). */
function redactParams(params: string, masked: ParamTest): string {
  return params
    .split(/([&;])/)
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq <= 0) return part;
      const value = part.slice(eq + 1);
      return value === '' || value.startsWith(MASK) || !masked(part.slice(0, eq)) ? part : `${part.slice(0, eq)}=${MASK}`;
    })
    .join('');
}

/** `path?query#fragment` with the values of the query's, and the fragment's (an OAuth implicit grant's), parameters masked. */
function redactTarget(target: string, masked: ParamTest): string {
  const hash = target.indexOf('#');
  const beforeHash = hash < 0 ? target : target.slice(0, hash);
  const question = beforeHash.indexOf('?');
  let out = question < 0 ? beforeHash : `${beforeHash.slice(0, question + 1)}${redactParams(beforeHash.slice(question + 1), masked)}`;
  if (hash >= 0) {
    const fragment = target.slice(hash + 1);
    out += `#${fragment.includes('=') ? redactParams(fragment, masked) : fragment}`;
  }
  return out;
}

/** A request target (`/hooks?token=x`) as it may be shown or recorded: `/hooks?token=****`. */
export function redactRequestTarget(target: string): string {
  return redactTarget(target, isSecretParam);
}

/**
 * A source as it may be shown: a `scheme://` URL with its userinfo given as `****@` and its secret parameters' values
 * as `****` (`https://****@host/cat.csv?token=****&page=2`); anything else (a file path, `-`) unchanged. A URL that
 * does not parse is redacted conservatively: everything between `//` and its last `@`.
 */
export function redactSourceName(source: string): string {
  return redactSource(source, isSecretParam);
}

/**
 * What tells one source from another (for the journal and state of its runs): its shown name with the values that
 * change at each signing masked as well (`X-Amz-Date`, an expiry), so the same catalog at a URL signed anew each
 * night is the same source.
 */
export function sourceIdentity(source: string): string {
  return redactSource(source, isSecretOrVolatileParam);
}

function redactSource(source: string, masked: ParamTest): string {
  const scheme = SCHEME.exec(source)?.[0] ?? MISTYPED_SCHEME.exec(source)?.[0];
  if (scheme === undefined) return source;
  const rest = source.slice(scheme.length);
  let at: number;
  if (URL.canParse(source)) {
    // As the URL parser reads it: the authority ends at the first `/`, `?` or `#`, its userinfo at its last `@`.
    const ends = SPECIAL.has(scheme.slice(0, scheme.indexOf(':')).toLowerCase()) ? /[/?#\\]/ : /[/?#]/;
    const end = rest.search(ends);
    at = (end < 0 ? rest : rest.slice(0, end)).lastIndexOf('@');
  } else {
    at = rest.lastIndexOf('@');
  }
  const userinfo = at < 0 ? '' : `${MASK}@`;
  return `${scheme}${userinfo}${redactTarget(rest.slice(at + 1), masked)}`;
}

/** URLs in free text: up to a space, a quote or a bracket. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
/** A mistyped URL in free text that holds a userinfo (see MISTYPED_SCHEME): up to a space, a quote or a bracket. */
const MISTYPED_URL_IN_TEXT = /\b(?:https?|wss?|ftp|s3):[/\\]+[^\s"'<>`@]*@[^\s"'<>`]*/gi;
/** Punctuation that ends a sentence or a location (`url:12:`) rather than the URL. */
const TRAILING = /[:,;.)\]}]+$/;
/** A parameter outside a whole URL (a request line, a path and query): only after a `?` or `&`. */
const LOOSE_PARAM = /(?<=[?&])([^=&#\s"'<>?]+)=([^&#\s"'<>:,;()]*)/g;
/** The AWS and Google signing parameters wherever they are (a store's error may echo its canonical request). */
const SIGNING_PARAM = /\b(X-(?:Amz|Goog)-[A-Za-z-]+)=([^&#\s"'<>:,;()]*)/gi;

/**
 * Every URL in a text given as {@link redactSourceName} gives it, and the secret parameters of a query that stands
 * without its URL. For text that leaves the process: messages, log lines, report cells.
 */
export function redactUrlsIn(text: string): string {
  let out = text;
  if (out.includes('://')) {
    out = out.replace(URL_IN_TEXT, (url) => {
      const trailing = TRAILING.exec(url)?.[0] ?? '';
      return `${redactSourceName(url.slice(0, url.length - trailing.length))}${trailing}`;
    });
  }
  if (out.includes(':/') || out.includes(':\\')) out = out.replace(MISTYPED_URL_IN_TEXT, (url) => redactSourceName(url));
  if (!out.includes('=')) return out;
  const mask = (whole: string, name: string, value: string): string => (value === '' || value.startsWith(MASK) || !isSecretParam(name) ? whole : `${name}=${MASK}`);
  return out.replace(LOOSE_PARAM, mask).replace(SIGNING_PARAM, mask);
}

/** A URL part as a reader may see it echoed: percent-decoded (`+` as a space in a query), or as written if malformed. */
function decodedPart(text: string, plus: boolean): string {
  try {
    return decodeURIComponent(plus ? text.replaceAll('+', ' ') : text);
  } catch {
    return text;
  }
}

/**
 * The credentials a URL carries, bare: its userinfo's password and the values of its secret parameters (query and
 * fragment), each as written and decoded. A masked name hides them only where the URL is shown whole; registered as
 * secrets, they are masked wherever a service, a proxy or a store echoes them on their own.
 */
export function urlSecrets(source: string): string[] {
  if (!SCHEME.test(source) || !URL.canParse(source)) return [];
  const url = new URL(source);
  const found = url.password === '' ? [] : [url.password, decodedPart(url.password, false)];
  for (const params of [url.search.slice(1), url.hash.slice(1)]) {
    for (const part of params.split(/[&;]/)) {
      const eq = part.indexOf('=');
      if (eq <= 0 || !isSecretParam(part.slice(0, eq))) continue;
      const value = part.slice(eq + 1);
      if (value !== '') found.push(value, decodedPart(value, true));
    }
  }
  return found;
}
