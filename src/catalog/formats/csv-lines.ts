/** Line breaks inside a record's values: `breaks` counts CRLF, CR and LF once each; `crlf` counts the CRLF pairs. */
export interface LineBreaks {
  breaks: number;
  crlf: number;
}

export function lineBreaks(values: readonly string[]): LineBreaks {
  let breaks = 0;
  let crlf = 0;
  for (const value of values) {
    if (value.indexOf('\n') < 0 && value.indexOf('\r') < 0) continue;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code === 0x0d) {
        breaks++;
        if (value.charCodeAt(i + 1) === 0x0a) {
          crlf++;
          i++;
        }
      } else if (code === 0x0a) breaks++;
    }
  }
  return { breaks, crlf };
}

/**
 * Where a CRLF of the bytes is split between a value and a record delimiter (a file whose first line ends with LF or
 * CR, and whose other rows end with CRLF): csv-parse keeps the CR (or LF) in the value and counts two lines where
 * there is one line break. Asked only of a record whose last value ends with CR, or whose first starts with LF.
 */
export interface SplitCrlf {
  /** The record just ended: the CR its last value ends with and the LF delimiter that ended it are one CRLF. */
  atEnd(): boolean;
  /** The record being read: the CR delimiter before it and the LF its first value starts with are one CRLF. */
  atStart(): boolean;
}

/**
 * How a record meets the end of the input: `delimited`, a record delimiter ends it (or more input follows);
 * `unterminated`, the input ends in its last value; `break`, the input ends with a line break in its last value
 * (csv-parse counts a line break when it reads what follows it: that one is not counted).
 */
export type RecordEnding = 'delimited' | 'unterminated' | 'break';

/** How many CRLFs a record's values share with the record delimiters around it (0, 1 or 2). */
export function splitCrlfs(values: readonly unknown[], split: SplitCrlf | undefined, ended: boolean): number {
  if (split === undefined) return 0;
  const first = values[0];
  const last = values[values.length - 1];
  let count = 0;
  if (typeof first === 'string' && first.charCodeAt(0) === 0x0a && split.atStart()) count++;
  if (ended && typeof last === 'string' && last.charCodeAt(last.length - 1) === 0x0d && split.atEnd()) count++;
  return count;
}

/**
 * Physical line numbers from csv-parse's line counter. csv-parse counts a CRLF inside a quoted value as two lines,
 * so its count drifts in files that have them; this keeps its own count from what each record holds. Feed it every
 * record end (good or bad) in order; it returns the line where that record starts.
 */
export class LineTracker {
  /** csv-parse's count at the end of the last record seen. */
  #parserLines = 0;
  /** The physical line where the last record seen ends. */
  #end = 0;
  readonly #split: SplitCrlf | undefined;

  /** `split` tells where a CRLF is split between a value and a record delimiter (see SplitCrlf). */
  constructor(split?: SplitCrlf) {
    this.#split = split;
  }

  /** The physical line where the last record seen ends. */
  get end(): number {
    return this.#end;
  }

  recordEnd(values: readonly string[], parserLines: number, ending: RecordEnding = 'delimited'): number {
    const delta = parserLines - this.#parserLines;
    this.#parserLines = parserLines;
    // Most records: one line, right after the previous one.
    if (delta === 1) return ++this.#end;
    const { breaks, crlf } = lineBreaks(values);
    const split = splitCrlfs(values, this.#split, true);
    this.#end += delta - crlf - split;
    // A line break the input ends with, in the last value, is not counted: like a delimiter, it ends the record.
    const trailing = ending === 'break' ? 1 : 0;
    return this.#end - (breaks - split - trailing);
  }

  /**
   * csv-parse counted `extra` lines too many (CRLFs inside the quoted values of a record whose end is not fed here,
   * one it dropped for an error): the lines after it are counted without them.
   */
  skipDoubleCounted(extra: number): void {
    this.#parserLines += extra;
  }

  /** The physical line of a position csv-parse reports while inside a record (where it found a bad quote). */
  lineOf(parserLines: number): number {
    return this.#end + (parserLines - this.#parserLines);
  }
}
