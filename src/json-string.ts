/**
 * `JSON.stringify(text)`, the same text to the character, for the strings written once per row (a SKU, a hash, a
 * title): a text of printable ASCII holding no `"` and no `\` is the only kind JSON.stringify writes as it is between
 * two quotes, so it is quoted here without the native call (about twice the cost for a short text); any other text
 * goes to JSON.stringify.
 */
export function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(text);
  }
  return `"${text}"`;
}
