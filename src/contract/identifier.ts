/**
 * Characters an identifier (a SKU, a marketplace, a location key, a policy id, a condition) may not hold: C0
 * controls (NUL, tab and line breaks among them), DEL and C1 controls, the line and paragraph separators, and the
 * direction controls that reorder what a reader sees. Each is invisible or reshapes the text around it, so two
 * identifiers that look the same could differ, and a SKU could not be typed, searched for or shown as it is. Free
 * text (a title) may hold them. Kept free of zod: the preparer's hot path asks it of every row.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/** True when `value` holds no character an identifier may not hold. */
export function isSafeIdentifier(value: string): boolean {
  return !UNSAFE.test(value);
}

function kind(code: number): string {
  if (code === 0x2028 || code === 0x2029) return 'a line or paragraph separator';
  if (code > 0x9f) return 'a direction control';
  return 'a control character';
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
  return `holds ${kind(code)} (${point}) at character ${match.index + 1}; an identifier cannot hold control characters, line breaks or direction controls`;
}
