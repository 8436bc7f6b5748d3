const LF = 0x0a;
const CR = 0x0d;

/**
 * The line ends in `bytes`, where CRLF, LF and a bare CR each end one line (old Mac exports end lines with CR).
 * `lastBefore` is the byte just before `bytes` (the end of the previous chunk), so that a CRLF split between two
 * chunks counts once. Native searches, no loop over every byte.
 */
export function countLineEnds(bytes: Buffer, lastBefore: number): number {
  let ends = 0;
  for (let at = bytes.indexOf(CR); at !== -1; at = bytes.indexOf(CR, at + 1)) ends++;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) {
    if ((at === 0 ? lastBefore : bytes[at - 1]) !== CR) ends++;
  }
  return ends;
}

/** True when `byte` ends a line: a file whose last byte is not one has a last line without its end. */
export function isLineEnd(byte: number): boolean {
  return byte === LF || byte === CR;
}
