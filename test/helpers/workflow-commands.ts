/** A GitHub workflow command as the runner reads it from a line of a step's output. */
export interface WorkflowCommand {
  name: string;
  properties: Record<string, string>;
  data: string;
}

/**
 * The runner's reading of one line (actions/runner, ActionCommand.cs): a `::name props::data` command when the line
 * starts with `::` after leading spaces; else a legacy `##[name]` command found anywhere in the line.
 */
export function commandOf(line: string): WorkflowCommand | undefined {
  const message = line.trimStart();
  const unescape = (text: string, property: boolean) => {
    let out = text.replaceAll('%0D', '\r').replaceAll('%0A', '\n');
    if (property) out = out.replaceAll('%3A', ':').replaceAll('%2C', ',');
    return out.replaceAll('%25', '%');
  };
  if (message.startsWith('::')) {
    const end = message.indexOf('::', 2);
    if (end >= 0) {
      const info = message.slice(2, end);
      const space = info.indexOf(' ');
      const properties: Record<string, string> = {};
      if (space > 0) {
        for (const pair of info.slice(space + 1).split(',')) {
          const at = pair.indexOf('=');
          if (at > 0) properties[pair.slice(0, at)] = unescape(pair.slice(at + 1), true);
        }
      }
      return { name: space < 0 ? info : info.slice(0, space), properties, data: unescape(message.slice(end + 2), false) };
    }
  }
  const legacy = /##\[([^\]\s]+)/.exec(line);
  return legacy === null ? undefined : { name: legacy[1] ?? '', properties: {}, data: '' };
}

/** The workflow commands in a stream's text, line by line as the runner splits it (LF, CR, CRLF). */
export function commandsIn(text: string): WorkflowCommand[] {
  return text.split(/\r\n|\r|\n/).flatMap((line) => {
    const command = commandOf(line);
    return command === undefined ? [] : [command];
  });
}
