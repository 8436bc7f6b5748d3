/** One example: the command line, and what it does. */
export type Example = readonly [command: string, does: string];

/** One line of a help list: the term (`--timeout <duration>`, `publish [options] <source...>`) and what it does. */
export type HelpItem = readonly [term: string, description: string];

/** A list under a heading: `Arguments:`, a group of options, a group of commands. */
export interface HelpSection {
  readonly heading: string;
  readonly items: readonly HelpItem[];
}

/**
 * The help of one command as plain data, before it is laid out to a width. src/cli/help.ts makes it from the
 * commander program (and the flag table behind it); `npm run build` writes every command's to dist/help.json, from
 * which bin/listings.js prints a help without loading the CLI.
 */
export interface HelpModel {
  readonly usage: string;
  readonly description: string;
  readonly sections: readonly HelpSection[];
  readonly examples: readonly Example[];
}

// commander 14's layout (lib/help.js formatHelp): items indented 2, 2 spaces after the widest term, no wrapping
// in a column narrower than 40, and the examples after it as `addHelpText('after')` would write them.
const INDENT = '  ';
const SPACER = 2;
const MIN_WIDTH_TO_WRAP = 40;

/** `text` wrapped at white space to `width` columns, its own line breaks kept (commander's `boxWrap`). */
function wrap(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const lines: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const [first = '', ...chunks] = line.match(/\s*\S+/g) ?? [''];
    let current = first;
    for (const chunk of chunks) {
      if (current.length + chunk.length <= width) {
        current += chunk;
      } else {
        lines.push(current);
        current = chunk.trimStart();
      }
    }
    lines.push(current);
  }
  return lines.join('\n');
}

/** One item: the term padded to the widest, its description wrapped beside it (commander's `formatItem`). */
function itemText([term, description]: HelpItem, termWidth: number, width: number): string {
  if (!description) return INDENT + term;
  const room = width - termWidth - SPACER - INDENT.length;
  // A description with an indented line is laid out by hand: commander keeps it as it is.
  const kept = room < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description);
  const text = kept ? description : wrap(description, room).replace(/\n/g, `\n${' '.repeat(termWidth + SPACER)}`);
  return `${INDENT}${term.padEnd(termWidth)}${' '.repeat(SPACER)}${text.replace(/\n/g, `\n${INDENT}`)}`;
}

/** The help of a command, laid out to `width` columns as commander lays out its own, then the examples. */
export function renderHelp(model: HelpModel, width: number): string {
  const sections = model.sections.filter((section) => section.items.length > 0);
  const termWidth = Math.max(0, ...sections.flatMap((section) => section.items.map(([term]) => term.length)));
  const lines = [`Usage: ${model.usage}`, ''];
  if (model.description.length > 0) lines.push(wrap(model.description, width), '');
  for (const { heading, items } of sections) lines.push(heading, ...items.map((item) => itemText(item, termWidth, width)), '');
  if (model.examples.length === 0) return lines.join('\n');
  const examples = model.examples.flatMap(([command, does]) => [`${INDENT}# ${does}`, `${INDENT}${command}`]);
  return `${lines.join('\n')}\nExamples:\n${examples.join('\n')}\n\n`;
}
