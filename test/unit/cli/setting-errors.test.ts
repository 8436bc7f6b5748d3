import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, openCatalog, parseShard, UsageError, type Draft, type Format } from '../../../src/index.js';
import { listingsEndpoint } from '../../../src/client/endpoint.js';
import { DataFile } from '../../../src/sandbox/data-file.js';
import { openReport, SummaryCounter } from '../../../src/report/index.js';
import { readRetryRows, reportFormatOf } from '../../../src/report/index.js';
import { buildProgram } from '../../../src/cli/main.js';
import { wordError } from '../../../src/cli/report-error.js';
import { FLAG_OF_SETTING, cliName } from '../../../src/cli/setting-flags.js';
import { FLAGS } from '../../../src/options/index.js';
import { rejection, thrown } from '../../helpers/errors.js';
import { tempDir } from '../../helpers/tmp.js';

const program = await buildProgram();

/**
 * The catalog reader's errors name settings as a library caller passes them (`map`, `delimiter`), and carry the
 * setting; the CLI words the same errors with its flags, as it always has.
 */

function catalog(text: string): string {
  const file = join(tempDir(), 'c.csv');
  writeFileSync(file, text);
  return file;
}

async function readAll(drafts: AsyncIterable<Draft>): Promise<void> {
  for await (const _draft of drafts);
}

describe('catalog errors: the library names the setting, the CLI the flag', () => {
  it('a mapped column not in the header', async () => {
    const file = catalog('sku,Title\nA,Mug\n');
    const error = await rejection(UsageError, openCatalog(file, { map: { title: 'Name' } }));
    expect(error.message).toBe(`map title=Name: ${file} has no column "Name"`);
    expect(error.setting).toEqual({ key: 'map', value: 'title=Name' });
    expect(wordError(error)).toEqual({ message: `--map title=Name: ${file} has no column "Name"`, hint: 'its columns: "sku", "Title"' });
  });

  it('a delimiter that cannot separate fields', async () => {
    const error = await rejection(UsageError, openCatalog(catalog('sku\nA\n'), { delimiter: '"' }));
    expect(error.message).toBe('delimiter "\\"" cannot separate CSV fields; use one of , ; | tab');
    expect(error.setting).toEqual({ key: 'delimiter', value: '"' });
    expect(wordError(error).message).toBe('--delimiter "\\"" cannot separate CSV fields; use one of , ; | tab');
  });

  it('a format the reader does not know', async () => {
    const error = await rejection(UsageError, openCatalog(catalog('sku\nA\n'), { format: 'xml' as Format }));
    expect(error.message).toBe('format xml is not one of csv, tsv, json, ndjson');
    expect(error.setting).toEqual({ key: 'format', value: 'xml' });
    expect(wordError(error).message).toBe('--format xml is not one of csv, tsv, json, ndjson');
  });

  it('a preset whose columns the file lacks', async () => {
    const file = catalog('sku,Title\nA,Mug\n');
    const error = await rejection(UsageError, openCatalog(file, { preset: 'shopify' }));
    expect(error.message).toBe(`preset shopify: ${file} has no "Handle", "Variant SKU" column; is it a shopify product export?`);
    expect(error.setting).toEqual({ key: 'preset', value: 'shopify' });
    expect(wordError(error)).toEqual({ message: `--preset shopify: ${file} has no "Handle", "Variant SKU" column; is it a shopify product export?`, hint: 'its columns: "sku", "Title"' });
  });

  it('a JSON path that does not fit the document', async () => {
    const file = join(tempDir(), 'c.json');
    writeFileSync(file, '[{"sku":"A"}]');
    const opened = await openCatalog(file, { jsonPath: 'products' });
    const error = await rejection(UsageError, readAll(opened.drafts));
    expect(error.message).toBe(`${file}: the top level is an array, so jsonPath products does not apply`);
    expect(error.setting).toEqual({ key: 'jsonPath', value: 'products' });
    expect(wordError(error).message).toBe(`${file}: the top level is an array, so --json-path products does not apply`);
  });

  it('a hint that points at settings: no SKU column in what looks like a Shopify export', async () => {
    const file = catalog('Handle,Title,Variant SKU\nh,Mug,A\n');
    const error = await rejection(UsageError, openCatalog(file, {}));
    expect(error.setting).toBeUndefined();
    expect(error.hint).toBe(`name the SKU column with map 'sku=Variant SKU' (its columns: "Handle", "Title", "Variant SKU"); this looks like a Shopify export: try preset shopify`);
    expect(wordError(error).hint).toBe(`name the SKU column with --map 'sku=Variant SKU' (its columns: "Handle", "Title", "Variant SKU"); this looks like a Shopify export: try --preset shopify`);
  });

  it('names no flag in the library, and leaves an error that names no setting as it is', async () => {
    const errors = await Promise.all([
      rejection(UsageError, openCatalog(catalog('sku,Title\nA,Mug\n'), { map: { title: 'Name' } })),
      rejection(UsageError, openCatalog(catalog('sku\nA\n'), { delimiter: '' })),
      rejection(UsageError, openCatalog(catalog('sku\nA\n'), { format: 'xml' as Format })),
      rejection(UsageError, openCatalog(catalog('sku\nA\n'), { preset: 'shopify', map: { sku: 'SKU' } })),
    ]);
    for (const error of errors) expect(`${error.message} ${error.hint ?? ''}`).not.toContain('--');
    const plain = new UsageError('no catalog source given', { hint: 'name one' });
    expect(wordError(plain)).toEqual({ message: 'no catalog source given', hint: 'name one' });
  });

  it('the run settings too: a shard, a report format, a report to retry from', async () => {
    const shard = thrown(UsageError, () => parseShard('4/3'));
    expect(shard.message).toBe('shard must be K/N with 1 <= K <= N, or auto, got "4/3"');
    expect(shard.setting).toEqual({ key: 'shard', value: '4/3' });
    expect(wordError(shard)).toEqual({
      message: '--shard must be K/N with 1 <= K <= N, or auto, got "4/3"',
      hint: "for a CI matrix of three jobs use --shard 1/3, --shard 2/3 and --shard 3/3, or --shard auto to read the job's index from the CI",
    });
    const report = thrown(UsageError, () => reportFormatOf('run.txt'));
    expect(report.message).toBe('report run.txt: the format is chosen by the extension, and ".txt" is not one');
    expect(wordError(report).message).toBe('--report run.txt: the format is chosen by the extension, and ".txt" is not one');
    const retry = await rejection(UsageError, readRetryRows('run.xml'));
    expect(retry.message).toBe('retryFailed run.xml: a JUnit report cannot be read back');
    expect(wordError(retry).message).toBe('--retry-failed run.xml: a JUnit report cannot be read back');
  });

  it('words every setting as a flag that listings publish declares (the sandbox\'s data file: listings sandbox; validate\'s own; the stream\'s)', () => {
    const declared = (name: string) => program.commands.find((command) => command.name() === name)?.options.map((option) => option.long) ?? [];
    const { dataFile, adminListen, deadLetter, requestsOut, showErrors, images, title, ...rest } = FLAG_OF_SETTING;
    // The options of the sandbox and the listener, named by their own checks, are theirs.
    const server = (command: string) => FLAGS.filter((spec) => spec.key !== undefined && spec.commands.length === 1 && spec.commands[0] === command);
    for (const command of ['sandbox', 'listen']) for (const spec of server(command)) expect(declared(command), spec.name).toContain(FLAG_OF_SETTING[spec.key ?? '']);
    const run = Object.entries(rest).filter(([key]) => !FLAGS.some((spec) => spec.key === key && (spec.commands[0] === 'sandbox' || spec.commands[0] === 'listen')));
    for (const [, flag] of run) expect(declared('publish')).toContain(flag);
    expect(declared('sandbox')).toContain(dataFile);
    expect(declared('stream')).toEqual(expect.arrayContaining([adminListen, deadLetter]));
    expect(declared('validate')).toEqual(expect.arrayContaining([requestsOut, showErrors]));
    expect(declared('create')).toEqual(expect.arrayContaining([images, title]));
  });
});

describe('the next steps of the client, the sandbox and the reports: the library names the setting, the CLI the flag', () => {
  it('plain http to a host that is not loopback', () => {
    const error = thrown(ConfigError, () => listingsEndpoint('http://api.example.com'));
    expect(error.hint).toBe('use https, or pass allowInsecureHttp if you really mean it');
    expect(wordError(error).hint).toBe('use https, or pass --allow-insecure-http if you really mean it');
  });

  it("a sandbox data file that is not the sandbox's", async () => {
    const file = join(tempDir(), 'data.ndjson');
    writeFileSync(file, 'not a record\n');
    const error = await rejection(ConfigError, DataFile.open(file, () => undefined));
    expect(error.hint).toBe('give dataFile a file of its own: the sandbox appends to it and reads it back');
    expect(wordError(error).hint).toBe('give --data a file of its own: the sandbox appends to it and reads it back');
  });

  it("the CSV report's not_read line, worded as the run's metadata says", async () => {
    const reasons = await Promise.all(
      [undefined, cliName].map(async (name, i) => {
        const path = join(tempDir(), `run-${i}.csv`);
        const report = await openReport(path);
        await report.write({ index: 0, location: { source: 'cat.csv', line: 2 }, sku: 'A', outcome: 'published', httpStatus: 201, attempts: 1, durationMs: 5 });
        await report.close(new SummaryCounter().summary(5, [path], undefined, { complete: false, interrupted: true }), name === undefined ? undefined : { name });
        return readFileSync(path, 'utf8').trimEnd().split('\n').at(-1);
      }),
    );
    expect(reasons[0]).toContain('(retryFailed of this report sends them)');
    expect(reasons[1]).toContain('(--retry-failed of this report sends them)');
  });
});
