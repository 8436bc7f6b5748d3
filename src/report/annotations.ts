import { isAbsolute, relative, resolve } from 'node:path';
import { formatLocation, libraryName, type NameSetting } from '../errors.js';
import { inertShort, printable } from '../printable.js';
import { redact } from '../secrets.js';
import { count } from '../number-text.js';
import type { RowError, RowErrorCollector } from './row-errors.js';

/**
 * The GitHub Actions workflow commands of a run, as lines: failed and invalid rows as `::error` annotations, every
 * part escaped as GitHub's toolkit does, so no outside text can end a property or start a command of its own.
 */

/** Outside text longer than this is cut in an annotation or the summary (server messages are already short). */
const TEXT_MAX = 500;

/** The data of a workflow command (after `::`), as GitHub's toolkit escapes it: `%`, CR, LF. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A property value of a workflow command (`file=...`): the data escapes, plus `:` and `,`, which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/** One workflow command line: `::name key=value,...::data`, every part escaped. */
export function workflowCommand(name: string, properties: Record<string, string | number | undefined>, data: string): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`);
  return `::${name}${props.length === 0 ? '' : ` ${props.join(',')}`}::${escapeData(data)}`;
}

/** Outside text for a log line, an annotation or the summary: secrets masked, made inert, cut to TEXT_MAX. */
export function inertText(text: string): string {
  return inertShort(redact(text), TEXT_MAX);
}

/** A source that is a local file (the runner ties an annotation to a file of the repository, not to a URL). */
function isLocalFile(source: string): boolean {
  return source !== '-' && source !== '' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(source);
}

/**
 * The `file` of an annotation: relative to `GITHUB_WORKSPACE` when the file is inside it (as the repository names
 * it, whatever the step's `working-directory`), else absolute. None for a name that holds a CI command marker
 * (`##[`) or a control character other than a line break or tab (with colours on, its ESC would reach the log raw): no escaping of a property hides
 * the one or still names the file with the other, and the message says where the row is.
 */
export function annotationFile(source: string, cwd: string, workspace?: string): string | undefined {
  const file = isAbsolute(source) ? source : resolve(cwd, source);
  const inside = workspace === undefined || workspace === '' ? undefined : relative(resolve(workspace), file);
  const named = inside !== undefined && inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : file;
  // A line break is escaped (%0A) and read back by the runner, so it still names the file; an ESC is not.
  return /##[A-Za-z]*\[/.test(named) || printable(named) !== named ? undefined : named;
}

/**
 * `::error file=catalog.csv,line=17,title=listings publish - failed row::catalog.csv:17: sku X: HTTP 400 ...`. A
 * local file is named by {@link annotationFile}; a URL or stdin gets no `file`, and a JSON record no `line`. The
 * message repeats the location, as the log shows only the message; with `marketplaces` (as the terminal shows it: a
 * run to several, or `validate`), the row's marketplace after its SKU (`sku X on EBAY_GB:`).
 */
export function annotationLine(command: string, error: RowError, cwd: string, workspace?: string, marketplaces = false): string {
  const { location } = error;
  const local = isLocalFile(location.source);
  const file = local ? annotationFile(location.source, cwd, workspace) : undefined;
  const on = marketplaces && error.marketplace !== undefined ? ` on ${inertText(error.marketplace)}` : '';
  const sku = error.sku === undefined ? (on === '' ? '' : `${on}:`) : ` sku ${inertText(error.sku)}${on}:`;
  const message = `${inertText(formatLocation(location))}:${sku} ${error.outcome === 'invalid' ? 'invalid: ' : ''}${inertText(error.message)}`;
  return workflowCommand('error', { file: file === undefined ? undefined : redact(file), line: file === undefined ? undefined : location.line, title: `listings ${command} - ${error.outcome} row` }, message);
}

/** Where every row error can be read in full. */
function whereAll(command: string, reports: readonly string[], name: NameSetting): string {
  if (reports.length > 0) return `every row is in the report ${reports.join(', ')}`;
  return command === 'validate' ? `listings validate ${name('showErrors')} all lists them all` : `write them all with ${name('report')} FILE.csv`;
}

/**
 * The annotation lines of a run: a group holding one `::error` per row up to the cap, then one `::warning` counting
 * the rest. Nothing when no row failed. `name` words the settings a hint names (the CLI passes its flags).
 */
export function annotationLines(command: string, errors: RowErrorCollector, cwd: string, reports: readonly string[] = [], workspace?: string, name: NameSetting = libraryName, marketplaces = false): string[] {
  if (errors.total === 0) return [];
  const rows = (n: number) => `${count(n)} ${n === 1 ? 'row' : 'rows'}`;
  const validating = command === 'validate';
  const what = `${rows(errors.total)} ${validating ? 'invalid' : 'failed or invalid'}`;
  const title = `listings ${command}: ${what}${errors.rest > 0 ? `, the first ${count(errors.first.length)} annotated` : ''}`;
  const lines = [workflowCommand('group', {}, title), ...errors.first.map((error) => annotationLine(command, error, cwd, workspace, marketplaces)), '::endgroup::'];
  if (errors.rest > 0) {
    const text = `${what}: the first ${count(errors.first.length)} are annotated, ${count(errors.rest)} more are not (${whereAll(command, reports, name)})`;
    lines.push(workflowCommand('warning', { title: `listings ${command} - ${rows(errors.rest)} not annotated` }, redact(text)));
  }
  return lines;
}
