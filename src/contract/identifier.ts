/**
 * Characters an identifier (a SKU, a marketplace, a location key, a policy id, a condition) may not hold: C0
 * controls (NUL, tab and line breaks among them), DEL and C1 controls, the line and paragraph separators, and the
 * direction controls that reorder what a reader sees. Each is invisible or reshapes the text around it, so two
 * identifiers that look the same could differ, and a SKU could not be typed, searched for or shown as it is. For the
 * same reason the characters that take no room at all (soft hyphen, zero-width space, word joiner and the invisible
 * operators, a byte order mark inside the text: `SKU-1\u200b` showed as SKU-1 and was another listing), and a lone
 * surrogate (no character: UTF-8 cannot hold it, a strict JSON reader refuses its escape, and the registry of SKUs
 * would have taken `A\ud800` for `A\udc00`). Zero-width joiners stay: scripts and emoji need them. Free text (a title)
 * may hold them all. Kept free of zod: the preparer's hot path asks it of every row.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what this matches
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `value` holds no character an identifier may not hold. */
export function isSafeIdentifier(value: string): boolean {
  return !UNSAFE.test(value);
}

function kind(code: number): string {
  if (code === 0x2028 || code === 0x2029) return 'a line or paragraph separator';
  if (code >= 0xd800 && code <= 0xdfff) return 'a lone surrogate';
  if (code === 0xad || code === 0x200b || (code >= 0x2060 && code <= 0x2064) || code === 0xfeff) return 'an invisible character';
  if (code > 0x9f) return 'a direction control';
  return 'a control character';
}

/** Why an identifier cannot hold a character of this kind. */
function because(code: number): string {
  if (code >= 0xd800 && code <= 0xdfff) return 'it is half of a character, which no UTF-8 text holds';
  if (code === 0xad || code === 0x200b || (code >= 0x2060 && code <= 0x2064) || code === 0xfeff) return 'an identifier cannot hold characters that take no room, as two that look the same would differ';
  return 'an identifier cannot hold control characters, line breaks or direction controls';
}

/**
 * Why `value` cannot be an identifier (the first character it may not hold, and where), or undefined when it can.
 * The character is named by its code point, as it cannot be shown.
 */
export function identifierProblem(value: string): string | undefined {
  const match = UNSAFE.exec(value);
  if (match === null) return undefined;
  const code = match[0].charCodeAt(0);
  const point = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `holds ${kind(code)} (${point}) at character ${match.index + 1}; ${because(code)}`;
}
