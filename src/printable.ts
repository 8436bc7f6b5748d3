/**
 * Text that came from outside (a server's message, a catalog's value) made safe to show: control characters (C0
 * but tab and line breaks, DEL, C1) and the bidirectional overrides that reorder what a reader sees are written as
 * `\uXXXX`, so an ESC in a server message cannot clear the screen, set the window title or hide a link, and a
 * report opened in a terminal shows what is there. With `lines: false`, tab, CR and LF are escaped too.
 */
export function printable(text: string, options: { lines?: boolean } = {}): string {
  const pattern = options.lines === false ? ALL_CONTROLS : CONTROLS_BUT_LINES;
  // Most text has nothing to escape: test first, so the common case allocates nothing.
  pattern.lastIndex = 0;
  if (!pattern.test(text)) return text;
  pattern.lastIndex = 0;
  return text.replace(pattern, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// eslint-disable-next-line no-control-regex -- control characters are what these match
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- control characters are what these match
const ALL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Outside text (a SKU, a server's message, a catalog value) made inert for any log line: control characters and
 * line breaks written as `\uXXXX` (so nothing can start a line of its own, where `::command::` would be obeyed), and
 * GitHub's legacy `##[command]` marker, which the runner obeys anywhere in a line (actions/runner#4692), broken as
 * `\u0023#[`.
 */
export function inert(text: string): string {
  return printable(text, { lines: false }).replaceAll('##[', '\\u0023#[');
}
