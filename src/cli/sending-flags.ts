import { Option, type Command } from 'commander';
import { perSecond, whole } from './option-parsers.js';
import { collect } from './catalog-options.js';

/** What one attempt is of: a catalog row (`publish`) or a topic's message (`stream`). */
type Unit = 'row' | 'message';

/** One flag as data: what commander needs to declare it, so that commands sharing it cannot drift. */
interface FlagSpec {
  flags: string;
  description: string;
  parse?: (raw: string, previous: never) => unknown;
  default?: unknown;
  choices?: readonly string[];
}

/** How the requests of `publish` and `stream` leave: the same engine, the same flags, worded for the unit each sends. */
function sendingFlags(unit: Unit): FlagSpec[] {
  return [
    { flags: '--sandbox', description: `publish to an embedded sandbox started on a free port (try it with no account)` },
    { flags: '--rate <n>', description: 'at most this many requests per second (a ceiling: the pace is also learned from 429s)', parse: perSecond },
    { flags: '--max-attempts <n>', description: `attempts per ${unit} that end in an error (pushback does not count), the first included`, parse: whole(1, 100), default: 5 },
    { flags: '--timeout <ms>', description: "time limit for an answer's headers, and between chunks of its body (default 30000)", parse: whole(100, 600_000) },
    { flags: '--connect-timeout <ms>', description: 'time limit for opening a connection (default 10000)', parse: whole(100, 600_000) },
    {
      flags: '--give-up-after <s>',
      description: `${unit === 'row' ? 'stop (exit 3)' : 'end (exit 3, after committing what is done)'} once the service has accepted nothing for this long: only pushback, timeouts or no connection (default 60)`,
      parse: whole(1, 86_400),
    },
  ];
}

/** The log flags of publish, validate and stream: quiet, and the stderr format (one schema: src/run/log-events.ts). */
function logFlags(unit: Unit): FlagSpec[] {
  return [
    { flags: '--quiet', description: `print only the summary${unit === 'row' ? '' : ', warnings'} and errors` },
    { flags: '--log-format <format>', description: `stderr as human lines, or as NDJSON events${unit === 'row' ? ' (json: one object a line, no progress line)' : ''}`, choices: ['human', 'json'], default: 'human' },
  ];
}

/** The output flags of publish and stream: the summary on stdout, and the log flags. */
function outputFlags(unit: Unit): FlagSpec[] {
  return [{ flags: '--json', description: `print the ${unit === 'row' ? '' : 'final '}summary as one JSON object on stdout` }, ...logFlags(unit)];
}

/** The results report of publish and validate: one file a row, its format told by the extension. */
const REPORT_FLAG: FlagSpec = { flags: '--report <file>', description: 'write a results report: .csv, .json, .ndjson, .xml (JUnit) or .html; repeatable', parse: collect, default: [] };

function declare(command: Command, specs: readonly FlagSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    const { parse } = spec;
    // `previous` is the value so far: the default, or what the flag gave before (a repeatable flag collects).
    if (parse !== undefined) option.argParser((raw: string, previous: unknown) => parse(raw, previous as never));
    if (spec.choices !== undefined) option.choices(spec.choices);
    if (spec.default !== undefined) option.default(spec.default);
    command.addOption(option);
  }
  return command;
}

/** Adds the sending flags of `publish` or `stream` to `command`, in its current options group. */
export function addSendingFlags(command: Command, unit: Unit): Command {
  return declare(command, sendingFlags(unit));
}

/** Adds the output flags of `publish` or `stream` to `command`, in its current options group. */
export function addOutputFlags(command: Command, unit: Unit): Command {
  return declare(command, outputFlags(unit));
}

/** Adds `--quiet` and `--log-format` (validate: its `--json` is its own result). */
export function addLogFlags(command: Command): Command {
  return declare(command, logFlags('row'));
}

/** Adds `--report <file>` (repeatable) to `command`, in its current options group. */
export function addReportFlag(command: Command): Command {
  return declare(command, [REPORT_FLAG]);
}
