/**
 * The one module that handles secrets. Every secret the process learns is registered here, and every text that
 * leaves the process (messages, reports, journals) can be passed through `redact`.
 */
const secrets = new Set<string>();

export const MASK = '****';

/** Remember a secret so that `redact` removes it. Very short values are not registered (they would mask noise). */
export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= 4) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  return out;
}

/** `sk_live_abcdef` -> `sk_****` : enough to recognise which key, never enough to use it. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? MASK : `${value.slice(0, 3)}${MASK}`;
}
