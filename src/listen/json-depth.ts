/** The deepest nesting of arrays and objects a JSON body may have; a deeper one is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deeply JSON text nests its arrays and objects, found by one pass over the characters (no recursion, no value
 * built), so that a body too deep to print or walk is refused before `JSON.parse`. Brackets inside strings do not
 * count. The scan stops as soon as the depth passes `limit`, and then returns `limit + 1`. Text that is not JSON
 * gets a number too (its unquoted brackets counted): `JSON.parse` is what tells it is not JSON.
 */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if ((code === 0x7d || code === 0x5d) && depth > 0) depth--;
  }
  return deepest;
}
