import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/tmp.js';
import { GithubRun, githubActionsRun } from '../../../src/cli/github-actions.js';
import { inert } from '../../../src/printable.js';
import { annotationFile, annotationLine, annotationLines, escapeData, escapeProperty, workflowCommand } from '../../../src/report/annotations.js';
import { escapeMarkdown, publishSummaryMarkdown, validateSummaryMarkdown } from '../../../src/report/ci-summary.js';
import { ANNOTATIONS_MAX, RowErrorCollector, rowErrorOf, rowErrorOfPrepared, type RowError } from '../../../src/report/row-errors.js';
import type { OutcomeKind, RowOutcome } from '../../../src/publish/outcome.js';
import { SummaryCounter } from '../../../src/report/summary.js';
import { publishVerdict } from '../../../src/run/verdict.js';

/**
 * The runner's side, after actions/runner src/Runner.Common/ActionCommand.cs: a `::` command is a line that starts
 * with `::` after leading spaces; its data and properties are unescaped in this order. The legacy `##[name]` form
 * is found anywhere in a line.
 */
function unescapeData(text: string): string {
  return text.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
}
function unescapeProperty(text: string): string {
  return text.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%3A', ':').replaceAll('%2C', ',').replaceAll('%25', '%');
}
interface Parsed {
  name: string;
  properties: Record<string, string>;
  data: string;
}
function parseCommand(line: string): Parsed | undefined {
  const message = line.trimStart();
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const name = space < 0 ? info : info.slice(0, space);
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info.slice(space + 1).trim().split(',').filter((p) => p !== '')) {
      const at = pair.indexOf('=');
      if (at > 0) properties[pair.slice(0, at)] = unescapeProperty(pair.slice(at + 1));
    }
  }
  return { name, properties, data: unescapeData(message.slice(end + 2)) };
}

const HOSTILE = ['%0A::error::pwned', 'x\n::add-mask::pwned', 'a\r\n::set-output name=x::y', '100%25', '%%0A%0D', 'a:b,c=d', '##[add-mask]pwned', '\u001b[2J'];

function outcome(i: number, kind: OutcomeKind, extra: Partial<RowOutcome> = {}): RowOutcome {
  return { index: i, location: { source: 'catalog.csv', line: i + 2 }, sku: `SKU-${i}`, outcome: kind, attempts: 1, durationMs: 3, ...extra };
}

function failed(i: number, extra: Partial<RowOutcome> = {}): RowOutcome {
  return outcome(i, 'failed', { httpStatus: 400, error: 'HTTP 400 Bad Request: nope', ...extra });
}

describe('workflow command escaping', () => {
  it('escapes data and properties as the runner unescapes them (any string round-trips, on one line)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('%', '0', 'A', 'D', '2', '5', '3', 'C', ':', ',', '\r', '\n', 'x', '=') }), (text) => {
        const data = escapeData(text);
        expect(data).not.toMatch(/[\r\n]/);
        expect(unescapeData(data)).toBe(text);
        const property = escapeProperty(text);
        expect(property).not.toMatch(/[\r\n:,]/);
        expect(unescapeProperty(property)).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it.each(HOSTILE)('keeps %j inside one command as its text', (text) => {
    const line = workflowCommand('error', { file: text, title: text }, text);
    expect(line.split('\n')).toHaveLength(1);
    const parsed = parseCommand(line);
    expect(parsed).toEqual({ name: 'error', properties: { file: text, title: text }, data: text });
  });

  it('leaves out empty properties', () => {
    expect(workflowCommand('group', {}, 'rows')).toBe('::group::rows');
    expect(workflowCommand('error', { file: undefined, line: 3, title: '' }, 'm')).toBe('::error line=3::m');
  });
});

describe('inert', () => {
  it('writes line breaks and controls out, and breaks the legacy ##[ marker', () => {
    expect(inert('x\n::add-mask::pwned')).toBe('x\\u000a::add-mask::pwned');
    expect(inert('a##[add-mask]b')).toBe('a\\u0023#[add-mask]b');
    expect(inert('\u001b[31mred')).toBe('\\u001b[31mred');
    expect(inert('plain SKU-1 %0A')).toBe('plain SKU-1 %0A');
  });
});

describe('annotations', () => {
  const cwd = '/work/repo';

  it('ties a local file row to its absolute path and line, and repeats the location in the message', () => {
    const error = rowErrorOf(failed(15)) as RowError;
    const parsed = parseCommand(annotationLine('publish', error, cwd));
    expect(parsed).toEqual({
      name: 'error',
      properties: { file: '/work/repo/catalog.csv', line: '17', title: 'listings publish - failed row' },
      data: 'catalog.csv:17: sku SKU-15: HTTP 400 Bad Request: nope',
    });
  });

  it('gives a URL or stdin no file, and a JSON record no line', () => {
    const s3 = parseCommand(annotationLine('publish', { location: { source: 's3://bucket/a,b:c.csv', line: 4 }, outcome: 'failed', cause: 'network', message: 'reset' }, cwd));
    expect(s3?.properties).toEqual({ title: 'listings publish - failed row' });
    expect(s3?.data).toBe('s3://bucket/a,b:c.csv:4: reset');
    const json = parseCommand(annotationLine('validate', { location: { source: 'items.json', record: 7 }, outcome: 'invalid', cause: 'invalid', message: 'sku: is required' }, cwd));
    expect(json?.properties).toEqual({ file: '/work/repo/items.json', title: 'listings validate - invalid row' });
    expect(json?.data).toBe('items.json#7: invalid: sku: is required');
  });

  it('escapes a file name with : and , in the file property', () => {
    const line = annotationLine('publish', { location: { source: '/data/a:b,c.csv', line: 2 }, outcome: 'failed', cause: '500', message: 'm' }, cwd);
    expect(line).toContain('file=/data/a%3Ab%2Cc.csv,line=2,');
    expect(parseCommand(line)?.properties.file).toBe('/data/a:b,c.csv');
  });

  it.each([
    ['catalog.csv', '/work/repo', 'catalog.csv'],
    ['catalog.csv', '/work', 'repo/catalog.csv'],
    ['/elsewhere/catalog.csv', '/work/repo', '/elsewhere/catalog.csv'],
    ['../repo-other/x.csv', '/work/repo', '/work/repo-other/x.csv'],
    ['catalog.csv', undefined, '/work/repo/catalog.csv'],
    ['##[error]x.csv', '/work/repo', undefined],
    ['/w/##vso[task.complete]/x.csv', '/work/repo', undefined],
  ])('names %j relative to the workspace %j when inside it: %j', (source, workspace, file) => {
    expect(annotationFile(source, cwd, workspace)).toBe(file);
    const line = annotationLine('validate', { location: { source, line: 2 }, outcome: 'invalid', cause: 'invalid', message: 'm' }, cwd, workspace);
    expect(parseCommand(line)?.properties.file).toBe(file);
    // A line number without a file means nothing to the runner.
    expect(parseCommand(line)?.properties.line).toBe(file === undefined ? undefined : '2');
  });

  it.each(HOSTILE)('shows a hostile SKU and message %j as text, in one error command', (text) => {
    const line = annotationLine('publish', rowErrorOf(failed(1, { sku: text, error: `HTTP 400 Bad Request: ${text}` })) as RowError, cwd);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toContain('##[');
    const parsed = parseCommand(line);
    expect(parsed?.name).toBe('error');
    expect(parsed?.data).toBe(`catalog.csv:3: sku ${inert(text)}: HTTP 400 Bad Request: ${inert(text)}`);
    expect(parsed?.data).not.toMatch(/[\r\n]/);
  });

  it("names the row's marketplace as the terminal does: for a run to several marketplaces, and for validate", () => {
    const errors = new RowErrorCollector();
    errors.add(rowErrorOf(failed(1, { marketplace: 'EBAY_GB' })));
    errors.add(rowErrorOf({ index: 2, location: { source: 'catalog.csv', line: 4 }, marketplace: 'EBAY_DE\n::x', outcome: 'invalid', error: 'title: is required', attempts: 0, durationMs: 0 }));
    const several = annotationLines('publish', errors, cwd, [], undefined, undefined, true).map((line) => parseCommand(line)?.data);
    expect(several.slice(1, 3)).toEqual(['catalog.csv:3: sku SKU-1 on EBAY_GB: HTTP 400 Bad Request: nope', 'catalog.csv:4: on EBAY_DE\\u000a::x: invalid: title: is required']);
    const one = annotationLines('publish', errors, cwd).map((line) => parseCommand(line)?.data);
    expect(one[1]).toBe('catalog.csv:3: sku SKU-1: HTTP 400 Bad Request: nope');
    const validated = rowErrorOfPrepared({ kind: 'invalid', location: { source: 'a.csv', line: 2 }, sku: 'x', marketplace: 'EBAY_AU', issues: [{ path: 'sku', message: 'is required' }] });
    expect(validated?.marketplace).toBe('EBAY_AU');
  });

  it('caps the annotations, and counts the rest in one warning', () => {
    const errors = new RowErrorCollector(3);
    for (let i = 0; i < 7; i++) errors.add(rowErrorOf(failed(i)));
    const lines = annotationLines('publish', errors, cwd, ['results.csv']);
    expect(lines.map((line) => parseCommand(line)?.name)).toEqual(['group', 'error', 'error', 'error', 'endgroup', 'warning']);
    expect(parseCommand(lines[0] ?? '')?.data).toBe('listings publish: 7 rows failed or invalid, the first 3 annotated');
    expect(parseCommand(lines[5] ?? '')?.data).toBe('7 rows failed or invalid: the first 3 are annotated, 4 more are not (every row is in the report results.csv)');
    expect(annotationLines('publish', new RowErrorCollector(3), cwd)).toEqual([]);
  });

  it('annotates up to ANNOTATIONS_MAX rows by default', () => {
    expect(ANNOTATIONS_MAX).toBe(50);
    const errors = new RowErrorCollector();
    for (let i = 0; i < 120; i++) errors.add(rowErrorOf(failed(i)));
    expect(annotationLines('publish', errors, cwd).filter((line) => line.startsWith('::error '))).toHaveLength(50);
    expect(errors.rest).toBe(70);
  });
});

describe('RowErrorCollector', () => {
  it('keeps only failed and invalid rows, groups them by cause and message, most rows first', () => {
    const errors = new RowErrorCollector(2);
    errors.add(rowErrorOf(outcome(0, 'published')));
    errors.add(rowErrorOf(failed(1, { httpStatus: 500, error: 'boom' })));
    for (let i = 2; i < 5; i++) errors.add(rowErrorOf(failed(i)));
    errors.add(rowErrorOf({ index: 5, location: { source: 'catalog.csv', line: 7 }, outcome: 'failed', errorKind: 'timeout', error: 'timed out', attempts: 5, durationMs: 1 }));
    expect(errors.total).toBe(5);
    expect(errors.first.map((error) => error.location.line)).toEqual([3, 4]);
    expect(errors.groups().map((group) => [group.rows, group.cause, group.message, group.first.line])).toEqual([
      [3, '400', 'HTTP 400 Bad Request: nope', 4],
      [1, '500', 'boom', 3],
      [1, 'timeout', 'timed out', 7],
    ]);
  });

  it('groups messages that differ only in a value, as the HTML report does: one kind, its count, values varying', () => {
    const errors = new RowErrorCollector();
    for (let i = 0; i < 458; i++) errors.add(rowErrorOf(outcome(i, 'invalid', { error: `images_source[0]: not an absolute http(s) URL: "images/${i}.jpg"` })));
    for (let i = 458; i < 465; i++) errors.add(rowErrorOf(failed(i, { error: `HTTP 400 Bad Request: image URL 'http://x/${i}.jpg' is not reachable` })));
    expect(errors.groups().map((group) => [group.rows, group.cause, group.varies])).toEqual([
      [458, 'invalid', true],
      [7, '400', true],
    ]);
    const markdown = validateSummaryMarkdown({ rows: 465, valid: 0, invalid: 465, skipped: 0, complete: true }, errors, ['a.csv'], { exitCode: 1, why: '465 rows invalid' });
    expect(markdown).toContain('| 458 | invalid | images\\_source\\[0\\]\\: not an absolute http\\(s\\) URL\\: "images/0.jpg" (values vary: the first is shown) | catalog.csv\\:2 |');
    expect(markdown).not.toContain('other kinds');
  });

  it('counts kinds of error beyond its limit without keeping them', () => {
    const errors = new RowErrorCollector(1, 2);
    for (let i = 0; i < 10; i++) errors.add(rowErrorOf(failed(i, { error: `message ${'abcd'.charAt(i % 4)}` })));
    expect(errors.groups()).toHaveLength(2);
    expect(errors.ungrouped).toBe(4);
  });

  it('reads a validated row: the issues on one line, a record-level issue without its path', () => {
    expect(rowErrorOfPrepared({ kind: 'ready', location: { source: 'a.csv', line: 2 }, sku: 'x', request: { sku: 'x', marketplace: 'EBAY_US' } })).toBeUndefined();
    expect(
      rowErrorOfPrepared({ kind: 'invalid', location: { source: 'a.csv', line: 2 }, sku: 'x', issues: [{ path: 'sku', message: 'is required' }, { path: '(record)', message: 'unreadable' }] }),
    ).toEqual({ location: { source: 'a.csv', line: 2 }, sku: 'x', outcome: 'invalid', cause: 'invalid', message: 'sku: is required; unreadable' });
  });
});

describe('markdown', () => {
  it('escapes HTML and markdown of outside text, on one line', () => {
    const text = escapeMarkdown('<img src=x onerror=alert(1)> | **b** [l](http://e) ![i](x) `c` &amp; @u #1 :smile: $x$\n::add-mask::p');
    expect(text).not.toMatch(/[<>\n]/);
    expect(text).not.toMatch(/(^|[^\\])[|*[\]()`#!@:$]/);
    expect(text).toContain('&lt;img src=x onerror=alert\\(1\\)&gt;');
    expect(text).toContain('&amp;amp;');
    expect(text).toContain('\\\\u000a\\:\\:add-mask\\:\\:p');
  });

  function summaryOf(outcomes: RowOutcome[], reports: string[] = []) {
    const counter = new SummaryCounter();
    for (const row of outcomes) counter.add(row);
    return counter.summary(2_000, reports, { requests: 40, throttled: 3, overloaded: 0, timeouts: 1, peakConcurrency: 8 });
  }

  it('summarises a publish run: status, counts, traffic, top errors, reports', () => {
    const outcomes: RowOutcome[] = [];
    for (let i = 0; i < 30; i++) outcomes.push(outcome(i, 'published', { httpStatus: 201 }));
    for (let i = 30; i < 42; i++) outcomes.push(failed(i, { error: 'HTTP 400 Bad Request: price | <b>bad</b>' }));
    outcomes.push(outcome(42, 'invalid', { error: 'images_source[0]: not an absolute http(s) URL' }));
    const errors = new RowErrorCollector();
    for (const row of outcomes) errors.add(rowErrorOf(row));
    const summary = summaryOf(outcomes, ['results.csv', 'run.html']);
    const markdown = publishSummaryMarkdown(summary, errors, { dryRun: false, sources: ['s3://exports/nightly/'], verdict: publishVerdict({ end: { kind: 'completed' }, summary }) });
    expect(markdown).toContain('### listings publish · s3\\://exports/nightly/\n');
    expect(markdown).toContain('**❌ 13 of 43 rows failed or invalid**\n\nExit code 1: 12 rows failed, 1 invalid; 30 published.\n');
    expect(markdown).toContain('| published | 30 |\n| failed | 12 |\n| invalid | 1 |\n| skipped | 0 |\n| not attempted | 0 |\n| **total** | **43** |');
    expect(markdown).toContain('43 rows in 2.0s (22 rows/s) · 40 requests, up to 8 at once; pushed back: 3 throttled (429), 1 timed out');
    expect(markdown).toContain('| 12 | 400 | HTTP 400 Bad Request\\: price \\| &lt;b&gt;bad&lt;/b&gt; | catalog.csv\\:32 |');
    expect(markdown).toContain('| 1 | invalid | images\\_source\\[0\\]\\: not an absolute http\\(s\\) URL | catalog.csv\\:44 |');
    expect(markdown).toContain('Reports: results.csv, run.html');
    expect(markdown).not.toContain('<b>');
  });

  it('tells published listings whose status is not ready, the service\'s text escaped for markdown', () => {
    const outcomes = [outcome(0, 'published', { listingStatus: 'ready' }), outcome(1, 'published', { listingStatus: 'pending' }), outcome(2, 'published', { listingStatus: '<b>draft</b>' })];
    const summary = summaryOf(outcomes);
    expect(summary.listing_status).toEqual({ ready: 1, '<b>draft</b>': 1, pending: 1 });
    const markdown = publishSummaryMarkdown(summary, new RowErrorCollector(), { dryRun: false, sources: ['catalog.csv'], verdict: publishVerdict({ end: { kind: 'completed' }, summary }) });
    expect(markdown).toContain('⚠️ not ready\\: 2 of 3 published listings came back with a status other than "ready"\\: "&lt;b&gt;draft&lt;/b&gt;" x1, "pending" x1');
    expect(markdown).not.toContain('<b>');
    const allReady = summaryOf([outcome(0, 'published', { listingStatus: 'ready' })]);
    expect(allReady.listing_status).toBeUndefined();
    expect(publishSummaryMarkdown(allReady, new RowErrorCollector(), { dryRun: false, sources: ['catalog.csv'], verdict: publishVerdict({ end: { kind: 'completed' }, summary: allReady }) })).not.toContain('not ready');
  });

  it('says a clean run in one line, and why a run stopped', () => {
    const published = summaryOf([outcome(0, 'published')]);
    const ok = publishSummaryMarkdown(published, new RowErrorCollector(), { dryRun: false, sources: ['catalog.csv'], verdict: publishVerdict({ end: { kind: 'completed' }, summary: published }) });
    expect(ok).toContain('**✅ 1 row published**\n\nExit code 0: 1 row published.\n');
    expect(ok).not.toContain('Top errors');
    const end = { kind: 'systemic', error: new Error('HTTP 401 Unauthorized'), requests: 1, reason: 'the key was rejected' } as const;
    const notSent = summaryOf([outcome(0, 'not_attempted')]);
    const stopped = publishSummaryMarkdown(notSent, new RowErrorCollector(), { dryRun: false, sources: ['catalog.csv'], end, verdict: publishVerdict({ end, summary: notSent }) });
    expect(stopped).toContain('Exit code 3: the service could not be used, so nothing more was sent\\: the key was rejected; 1 row not attempted.');
    // A run the service stopped: a banner above the counts, with the fix when there is one, and the next step.
    expect(stopped).toContain('> **⛔ Stopped: the service could not be used**: HTTP 401 Unauthorized\\: the key was rejected. No row after it was sent; the rows it refused are not at fault.\n\n**❌');
    const step = { command: "listings publish 'my catalog.csv' --resume", why: 'fix the cause first (the key was rejected), then continue where this run stopped' };
    const told = publishSummaryMarkdown(notSent, new RowErrorCollector(), { dryRun: false, sources: ['catalog.csv'], end: { ...end, hint: 'check LISTINGS_API_KEY' }, verdict: publishVerdict({ end, summary: notSent }), nextStep: step });
    expect(told).toContain('>\n> **Fix**: check LISTINGS\\_API\\_KEY\n');
    expect(told).toContain("**Next step**: fix the cause first \\(the key was rejected\\), then continue where this run stopped:\n\n```sh\nlistings publish 'my catalog.csv' --resume\n```");
  });

  it('lists the ten biggest kinds of error and counts the others', () => {
    const errors = new RowErrorCollector();
    for (let i = 0; i < 14; i++) for (let n = 0; n <= i; n++) errors.add(rowErrorOf(failed(n, { error: `kind ${String.fromCharCode(97 + i)}` })));
    const markdown = validateSummaryMarkdown({ rows: 200, valid: 95, invalid: 105, skipped: 0, complete: true }, errors, ['a.csv'], { exitCode: 1, why: '105 rows invalid; 95 valid' });
    expect(markdown).toContain('**❌ 105 of 200 rows invalid**');
    expect(markdown.match(/^\| \d+ \| 400 \|/gm)).toHaveLength(10);
    expect(markdown).toContain('| 14 | 400 | kind n |');
    expect(markdown).toContain('… and 10 rows with 4 other kinds of error.');
  });

  it('a validation the error limit stopped: the rows not validated are a row of the table, and the total adds up', () => {
    const markdown = validateSummaryMarkdown({ rows: 7, valid: 1, invalid: 2, skipped: 0, notValidated: 4, complete: true }, new RowErrorCollector(), ['a.csv'], { exitCode: 1, why: 'the validation stopped' });
    expect(markdown).toContain('| not validated | 4 |\n| **total** | **7** |');
    expect(validateSummaryMarkdown({ rows: 3, valid: 3, invalid: 0, skipped: 0, complete: true }, new RowErrorCollector(), ['a.csv'], { exitCode: 0, why: 'all valid' })).not.toContain('not validated');
  });
});

describe('GithubRun', () => {
  it('is off unless GITHUB_ACTIONS is true', () => {
    expect(githubActionsRun('publish', {})).toBeUndefined();
    expect(githubActionsRun('publish', { GITHUB_ACTIONS: 'false' })).toBeUndefined();
    expect(githubActionsRun('publish', { GITHUB_ACTIONS: 'true' })).toBeInstanceOf(GithubRun);
  });

  it('groups a list lazily on its own stream, then annotates and appends the summary', () => {
    const dir = tempDir('gha-unit-');
    const summaryPath = join(dir, 'summary.md');
    writeFileSync(summaryPath, 'earlier step\n');
    const commands: string[] = [];
    const listed: string[] = [];
    const run = new GithubRun('validate', { command: (line) => commands.push(line), summaryPath, cwd: dir });
    const print = run.grouped('listings validate: errors', (line) => listed.push(line), (line) => listed.push(line));
    run.endGroup();
    expect(listed).toEqual([]);
    print('a.csv:2: sku: is required');
    print('a.csv:3: sku: is required');
    run.addPrepared({ kind: 'invalid', location: { source: 'a.csv', line: 2 }, issues: [{ path: 'sku', message: 'is required' }] });
    run.finishValidate({ rows: 2, valid: 1, invalid: 1, skipped: 0, complete: true }, ['a.csv'], { exitCode: 1, why: '1 row invalid; 1 valid' });
    expect(listed).toEqual(['::group::listings validate: errors', 'a.csv:2: sku: is required', 'a.csv:3: sku: is required', '::endgroup::']);
    expect(commands.map((line) => parseCommand(line)?.name)).toEqual(['group', 'error', 'endgroup']);
    const written = readFileSync(summaryPath, 'utf8');
    expect(written.startsWith('earlier step\n### listings validate · a.csv\n')).toBe(true);
  });
});
