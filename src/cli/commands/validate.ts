import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Option, InvalidArgumentError, type Command } from 'commander';
import { FORMATS, type CatalogOptions, type Format } from '../../catalog/types.js';
import type { FieldIssue } from '../../contract/issues.js';
import type { PreparedRow } from '../../prepare/types.js';
import { formatLocation, UsageError, type Location } from '../../errors.js';
import { addSettingsOptions, loadSettings } from '../settings.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, out, paint } from '../output.js';

const PRESET_NAMES = ['shopify', 'woocommerce'] as const;

/** The catalog-reading flags, as commander collects them (shared by every command that reads a catalog). */
export interface CatalogFlags {
  format?: Format;
  delimiter?: string;
  jsonPath?: string;
  listSeparator?: string;
  map: string[];
  mapping?: string;
  preset?: (typeof PRESET_NAMES)[number];
  sourceHeader: string[];
  s3Endpoint?: string;
}

interface ValidateFlags extends CatalogFlags {
  maxErrors: number;
  json?: boolean;
  out?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function maxErrors(raw: string): number {
  if (raw === 'all') return Infinity;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw new InvalidArgumentError('expected a whole number or "all"');
  return value;
}

/** Adds the flags that say how to read a catalog: format, delimiter, mapping, preset, source access. */
export function addCatalogOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'catalog format (default: from the extension or Content-Type; required for stdin when it cannot be sniffed)').choices(FORMATS))
    .option('--delimiter <char>', 'CSV delimiter (default: sniffed among , ; tab |); "tab" or "\\t" for a tab')
    .option('--json-path <key>', 'for JSON: the key of the array of records, e.g. products for {"products": [...]}')
    .option('--list-separator <text>', 'separator of list values inside one cell (images_source)', '|')
    .option('--map <field=Column>', 'take a listing field from a column of another name (repeatable)', collect, [])
    .option('--mapping <file>', 'a JSON file of field -> column renames, e.g. {"sku": "Variant SKU"}')
    .addOption(new Option('--preset <name>', "read a shop system's product export").choices(PRESET_NAMES))
    .option('--source-header <header>', "'Name: value' header for http(s) sources (repeatable; not sent to other origins)", collect, [])
    .option('--s3-endpoint <url>', 'endpoint of an S3-compatible store (env AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL)');
}

/** The catalog options of the flags; the mapping file is read and every renamed field checked here, before any source. */
export async function catalogOptionsFrom(flags: CatalogFlags): Promise<CatalogOptions> {
  const { parseMapFlags, parseMappingJson } = await import('../../catalog/mapping/fields.js');
  let map: Record<string, string> = {};
  if (flags.mapping !== undefined) {
    const { readFile } = await import('node:fs/promises');
    let text: string;
    try {
      text = await readFile(flags.mapping, 'utf8');
    } catch (error) {
      throw new UsageError(`--mapping ${flags.mapping}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    map = parseMappingJson(text, flags.mapping);
  }
  map = { ...map, ...parseMapFlags(flags.map) };
  if (flags.listSeparator === '') throw new UsageError('--list-separator must not be empty');
  const options: CatalogOptions = {
    ...(flags.format === undefined ? {} : { format: flags.format }),
    ...(flags.delimiter === undefined ? {} : { delimiter: flags.delimiter }),
    ...(flags.jsonPath === undefined ? {} : { jsonPath: flags.jsonPath }),
    ...(flags.listSeparator === undefined ? {} : { listSeparator: flags.listSeparator }),
    ...(Object.keys(map).length === 0 ? {} : { map }),
    ...(flags.preset === undefined ? {} : { preset: flags.preset }),
    ...(flags.sourceHeader.length === 0 ? {} : { sourceHeaders: flags.sourceHeader }),
    ...(flags.s3Endpoint === undefined ? {} : { s3Endpoint: flags.s3Endpoint }),
  };
  const { checkCatalogOptions } = await import('../../catalog/open-catalog.js');
  checkCatalogOptions(options);
  return options;
}

/** One error as `--json` shows it; a JSON source's record index goes in `record`, with `line` null. */
interface JsonError {
  source: string;
  line: number | null;
  record?: number;
  field: string;
  message: string;
}

function jsonError(location: Location, issue: FieldIssue): JsonError {
  return {
    source: location.source,
    line: location.line ?? null,
    ...(location.line === undefined && location.record !== undefined ? { record: location.record } : {}),
    field: issue.path,
    message: issue.message,
  };
}

/** `catalog.csv:17: images_source[1]: not an absolute URL`; a record the parser could not read has no field. */
export function errorLine(location: Location, issue: FieldIssue): string {
  return issue.path === '(record)' ? `${formatLocation(location)}: ${issue.message}` : `${formatLocation(location)}: ${issue.path}: ${issue.message}`;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The counts of a validation run, and the first errors up to the limit. */
class Tally {
  rows = 0;
  inputRows = 0;
  valid = 0;
  invalid = 0;
  shown = 0;
  notShown = 0;
  readonly errors: JsonError[] = [];

  constructor(
    private readonly limit: number,
    private readonly json: boolean,
  ) {}

  add(row: PreparedRow): void {
    this.rows++;
    this.inputRows += row.rows ?? 1;
    if (row.kind === 'ready') {
      this.valid++;
      return;
    }
    this.invalid++;
    for (const issue of row.issues) {
      if (this.shown >= this.limit) {
        this.notShown++;
        continue;
      }
      this.shown++;
      if (this.json) this.errors.push(jsonError(row.location, issue));
      else out(errorLine(row.location, issue));
    }
  }

  summary(): string {
    const head = this.inputRows === this.rows ? `${count(this.rows)} rows` : `${count(this.inputRows)} input rows, ${count(this.rows)} listings`;
    const invalid = `${count(this.invalid)} invalid`;
    return `${head}: ${paint.green(`${count(this.valid)} valid`)}, ${this.invalid > 0 ? paint.red(invalid) : invalid}`;
  }
}

/** An NDJSON file written with back-pressure; opened before reading so a bad path fails first. */
async function openNdjson(path: string) {
  const stream = createWriteStream(path);
  let failure: Error | undefined;
  stream.on('error', (error) => (failure = error));
  const fail = (error: Error) => new UsageError(`--out ${path}: cannot write it (${(error as NodeJS.ErrnoException).code ?? error.message})`);
  try {
    await once(stream, 'open');
  } catch (error) {
    throw fail(error as Error);
  }
  return {
    async write(value: unknown): Promise<void> {
      if (failure) throw fail(failure);
      if (!stream.write(`${JSON.stringify(value)}\n`)) await once(stream, 'drain');
    },
    async close(): Promise<void> {
      stream.end();
      if (!stream.writableFinished && !failure) await once(stream, 'finish');
      if (failure) throw fail(failure);
    },
  };
}

async function validate(sources: string[], flags: ValidateFlags, command: Command): Promise<void> {
  const options = await catalogOptionsFrom(flags);
  const settings = await loadSettings(command.opts());
  const [{ openCatalog }, { createPreparer }] = await Promise.all([import('../../catalog/open-catalog.js'), import('../../prepare/preparer.js')]);
  const prepare = createPreparer(settings.defaults);
  const tally = new Tally(flags.maxErrors, flags.json === true);
  const requests = flags.out === undefined ? undefined : await openNdjson(flags.out);
  try {
    for (const source of sources) {
      const catalog = await openCatalog(source, options);
      for await (const draft of catalog.drafts) {
        const row = prepare(draft);
        tally.add(row);
        if (row.kind === 'ready' && requests) await requests.write(row.request);
      }
    }
  } finally {
    await requests?.close();
  }
  if (flags.json) {
    out(JSON.stringify({ rows: tally.rows, input_rows: tally.inputRows, valid: tally.valid, invalid: tally.invalid, errors: tally.errors, errors_not_shown: tally.notShown }));
  } else if (tally.notShown > 0) {
    out(`... and ${count(tally.notShown)} more errors`);
  }
  err(tally.summary());
  if (tally.invalid > 0) throw new ExitError(EXIT.rowsFailed);
}

export function registerValidate(program: Command): void {
  const command = program
    .command('validate')
    .description('check catalogs against the contract, sending nothing: exit 0 when every row is valid, 1 when any is not, 4 when a source cannot be read')
    .argument('<source...>', 'catalog: a file, - for stdin, an http(s):// URL, s3://bucket/key or s3://bucket/prefix/');
  addCatalogOptions(command)
    .addOption(new Option('--max-errors <n>', 'print at most this many errors, then a count of the rest ("all" for no limit)').argParser(maxErrors).default(50))
    .option('--json', 'print the result as one JSON object: {rows, valid, invalid, errors: [{source, line, field, message}]}')
    .option('--out <file>', 'write the request bodies that would be sent, one JSON per line per valid row');
  addSettingsOptions(command);
  command.action((sources: string[], flags: ValidateFlags, self: Command) => validate(sources, flags, self));
}
