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
 * How a record meets the end of the input: `delimited`, a line break ends it (or more input follows); `unterminated`,
 * the input ends in its last value.
 */
export type RecordEnding = 'delimited' | 'unterminated';

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

  /** The physical line where the last record seen ends. */
  get end(): number {
    return this.#end;
  }

  recordEnd(values: readonly string[], parserLines: number): number {
    const delta = parserLines - this.#parserLines;
    this.#parserLines = parserLines;
    // Most records: one line, right after the previous one.
    if (delta === 1) return ++this.#end;
    const { breaks, crlf } = lineBreaks(values);
    this.#end += delta - crlf;
    return this.#end - breaks;
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
