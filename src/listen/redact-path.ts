import { redact } from '../secrets.js';
import { redactRequestTarget } from '../secret-url.js';

/**
 * A request path (with its query) fit to show or record: each query (or fragment) value whose name says it is a
 * credential becomes `****` (by the rule every source URL is shown by, src/secret-url.ts), and every registered
 * secret is masked. The rest is kept as requested.
 */
export function redactPath(path: string): string {
  return redact(redactRequestTarget(path));
}
