/**
 * Text that came from outside (a server's message, a catalog's value) made safe to show: control characters (C0
 * but tab and line breaks, DEL, C1), the line and paragraph separators U+2028 and U+2029 (which some readers of a
 * line break at: Python's splitlines, a JS `^`), a lone surrogate (which no UTF-8 holds: a strict JSON reader refuses
 * its escape) and the bidirectional overrides that reorder what a reader sees are written as
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
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// eslint-disable-next-line no-control-regex -- control characters are what these match
const ALL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** True when `text` holds a character that `printable(text, { lines: false })` escapes. */
export function hasControl(text: string): boolean {
  ALL_CONTROLS.lastIndex = 0;
  return ALL_CONTROLS.test(text);
}

/**
 * Outside text (a SKU, a server's message, a catalog value) made inert for any log line: control characters and
 * line breaks written as `\uXXXX` (so nothing can start a line of its own, where `::command::` would be obeyed), and
 * GitHub's legacy `##[command]` marker, which the runner obeys anywhere in a line (actions/runner#4692), broken as
 * `\u0023#[`.
 */
export function inert(text: string): string {
  return printable(text, { lines: false }).replaceAll('##[', '\\u0023#[');
}

// The colours chalk writes (SGR: ESC [ digits m), then every control character but tab and LF, the line and paragraph
// separators (a line break to some readers, as in `printable`), the bidi controls, and the characters a terminal
// shows as nothing (zero-width space, word joiner and the invisible operators, U+FEFF): a column "sku\u200b" would
// read as "sku" in a notice. Reports keep these (a Thai title breaks its words with U+200B); the screen shows them.
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const TERMINAL_UNSAFE = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * The last guard before the terminal, whatever a code path forgot to escape: every control character and invisible
 * character is written out as `\uXXXX` (as `printable` does), tab and LF aside; with `colours`, the colour sequences the tool writes
 * itself pass. So nothing that reaches stdout or stderr can clear the screen, set the title, ring the bell or hide a
 * link, even from a server's message or a catalog's cell that escaped `printable`.
 */
export function terminalSafe(text: string, colours: boolean): string {
  TERMINAL_UNSAFE.lastIndex = 0;
  if (!TERMINAL_UNSAFE.test(text)) return text;
  return text.replace(TERMINAL_UNSAFE, (match) => {
    if (match.length > 1) return colours ? match : `\\u001b${match.slice(1)}`;
    return `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

// The lines a CI runner obeys as commands in a step's output. GitHub Actions (actions/runner, ActionCommand.cs): a
// line whose first characters after white space are `::`, and the legacy `##[name]` anywhere in a line. Azure
// Pipelines' `##vso[` and TeamCity's `##teamcity[` have the same form. Leading colour sequences count as space here.
// eslint-disable-next-line no-control-regex -- ESC starts the colour sequences this skips
const LINE_COMMAND = /^((?:\s|\u001b\[[0-9;]*m)*):(?=:)/gm;
const ANYWHERE_COMMAND = /##(?=[A-Za-z]*\[)/g;

/**
 * A line (or lines) no CI runner obeys: a leading `::` is written `\u003a:` and the `#` that opens `##[`,
 * `##vso[` or `##teamcity[` is written `\u0023`, the way every other escaped character is shown. Applied to every line
 * the tool writes, whatever its origin (a file name, a catalog's value, a server's message, a webhook's body), and
 * whether or not `GITHUB_ACTIONS` is set: a step may run the tool in a container without it. The tool's own workflow
 * commands leave through `workflowLine` (src/cli/output.ts). A JSON line stays valid JSON with the same value (`##[` can only be in a
 * string, where `\u0023` is `#`), and never starts with `:`.
 */
export function runnerSafe(text: string, lineCommands = true): string {
  let safe = text;
  ANYWHERE_COMMAND.lastIndex = 0;
  if (ANYWHERE_COMMAND.test(safe)) safe = safe.replace(ANYWHERE_COMMAND, '\\u0023#');
  if (!lineCommands) return safe;
  LINE_COMMAND.lastIndex = 0;
  if (LINE_COMMAND.test(safe)) safe = safe.replace(LINE_COMMAND, (_match, space: string) => `${space}\\u003a`);
  return safe;
}

/**
 * Outside text for one line of output (a SKU, a marketplace, a row's error): `inert`, and cut to at most `max`
 * characters (`shortened`). So a 1 MB value costs a line of a terminal or a CI log, not a megabyte; the reports
 * keep the value whole.
 */
export function inertShort(text: string, max = 500): string {
  // Escaping writes at most 6 characters for one: what lies past max * 8 can never be shown.
  return shortened(inert(text.length > max * 8 ? text.slice(0, max * 8) : text), max);
}

/** Escaped text cut to at most `max` characters, ending `…`, never inside a `\uXXXX` escape or a surrogate pair. */
export function shortened(safe: string, max: number): string {
  if (safe.length <= max) return safe;
  let end = max - 1;
  const escape = safe.lastIndexOf('\\u', end);
  if (escape >= 0 && escape > end - 6) end = escape;
  const code = safe.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${safe.slice(0, end)}…`;
}
