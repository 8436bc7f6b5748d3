import { MASK, redact } from '../secrets.js';

/** Query parameters whose value is a credential: `?token=`, `?access_token=`, `?api_key=`, `?secret=`, `?sig=`... */
const SECRET_PARAM = /token|secret|passw|pwd|auth|key|sig|session|credential/i;

/**
 * A request path (with its query) fit to show or record: each query value whose name says it is a credential
 * becomes `****`, and every registered secret is masked. The rest is kept as requested.
 */
export function redactPath(path: string): string {
  const query = path.indexOf('?');
  if (query < 0) return redact(path);
  const masked = path.slice(query).replace(/([?&;])([^=&;#]*)=([^&;#]*)/g, (whole, separator: string, name: string) => (SECRET_PARAM.test(name) ? `${separator}${name}=${MASK}` : whole));
  return redact(path.slice(0, query) + masked);
}
