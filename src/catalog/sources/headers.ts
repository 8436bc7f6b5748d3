import { UsageError } from '../../errors.js';
import { headerValueFault, registerSecret } from '../../secrets.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `Name: value` strings (the `sourceHeaders` setting) as a header record. Their values often carry tokens, so each is
 * registered as a secret and never shown. Repeated names are joined with `, ` as HTTP allows.
 */
export function parseSourceHeaders(lines: readonly string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines ?? []) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!TOKEN.test(name)) {
      throw new UsageError((nameSetting) => `${nameSetting('sourceHeaders')} must look like 'Name: value'; got ${JSON.stringify(colon < 0 ? line : name)}`, { setting: { key: 'sourceHeaders' } });
    }
    const value = line.slice(colon + 1).trim();
    const fault = headerValueFault(value);
    if (fault !== undefined) throw new UsageError((nameSetting) => `${nameSetting('sourceHeaders')} ${name}: the value ${fault}`, { setting: { key: 'sourceHeaders', value: name } });
    registerSecret(value);
    // `Bearer <token>`, `Basic <credentials>`: the credentials can show up without their scheme.
    const space = value.indexOf(' ');
    if (space > 0) registerSecret(value.slice(space + 1).trim());
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return headers;
}
