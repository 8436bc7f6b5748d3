import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { commandsIn } from '../helpers/workflow-commands.js';
import { HEADER, csvRow } from '../helpers/publish.js';

/**
 * GitHub Actions output (GITHUB_ACTIONS=true): failed and invalid rows as `::error` annotations on stderr (capped,
 * with one warning counting the rest), a markdown summary appended to $GITHUB_STEP_SUMMARY, `::group::` around the
 * long lists; text from the catalog or the service shown, never obeyed; and none of it outside GitHub Actions.
 */

/** What a server or a catalog might send to take over the runner: a new line that starts a command, or the legacy form. */
const HOSTILE = 'rejected %0A::error::pwned\n::add-mask::pwned ##[add-mask]pwned <img src=x onerror=alert(1)> | **bold**';
const KEY = 'gha-test-key-0123456789';

/** A service that rejects every listing with HTTP 400 and a hostile message; counts the requests. */
let service: Server;
let serviceUrl = '';
let requests = 0;

beforeAll(async () => {
  service = createServer((request, response) => {
    requests++;
    request.resume();
    request.once('end', () => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: HOSTILE }));
    });
  });
  service.listen(0, '127.0.0.1');
  await once(service, 'listening');
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});

afterAll(async () => {
  service.closeAllConnections();
  await new Promise((resolve) => service.close(resolve));
});

/**
 * First a row with hostile values that is invalid (never sent): a SKU with a line break before a command, an image
 * that quotes one; then a valid row with a legacy command in its SKU, and 60 plain rows: the service rejects all 61.
 */
function writeHostileCatalog(dir: string): string {
  const lines = [HEADER];
  lines.push('"EVIL-1\n::add-mask::pwned",Item,EBAY_US,notaurl%0A::error::pwned##[add-mask]pwned,warehouse-1,FULFILL-1,PAY-1,RETURN-1,NEW');
  lines.push('EVIL-2##[add-mask]pwned,Item,EBAY_US,https://images.example.com/x.jpg,warehouse-1,FULFILL-1,PAY-1,RETURN-1,NEW');
  for (let i = 0; i < 60; i++) lines.push(csvRow(i));
  const path = join(dir, 'catalog.csv');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

interface Run extends CliResult {
  dir: string;
  catalog: string;
  summaryFile: string;
  summary: string;
}

/** `listings ARGS` in a fresh directory holding catalog.csv, and a step summary file with an earlier step's text. */
async function run(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const dir = tempDir('listings-gha-');
  const catalog = writeHostileCatalog(dir);
  const summaryFile = join(dir, 'step-summary.md');
  writeFileSync(summaryFile, '## an earlier step\n');
  const result = await runCli(args, {
    cwd: dir,
    env: { LISTINGS_BASE_URL: serviceUrl, LISTINGS_API_KEY: KEY, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_ACTIONS: undefined, ...env },
    timeoutMs: 15_000,
  });
  return { ...result, dir, catalog, summaryFile, summary: readFileSync(summaryFile, 'utf8') };
}

/** No line of either stream makes the runner do anything but annotate and fold. */
function expectOnlyOurCommands(result: CliResult): void {
  for (const stream of [result.stdout, result.stderr]) {
    for (const command of commandsIn(stream)) expect(['error', 'warning', 'group', 'endgroup']).toContain(command.name);
    expect(stream).not.toContain('##[');
    expect(stream).not.toContain(KEY);
  }
}

describe('listings publish in GitHub Actions', () => {
  it('annotates failed and invalid rows on stderr (capped), folds them, appends the step summary, obeys no outside text', async () => {
    const before = requests;
    const result = await run(['publish', 'catalog.csv', '--report', 'results.csv', '--json'], { GITHUB_ACTIONS: 'true' });
    expect(result.code, result.stderr).toBe(1);
    expect(requests - before).toBe(61);

    // stdout is still exactly the --json summary: the workflow commands are on stderr.
    const json = JSON.parse(result.stdout) as { failed: number; invalid: number };
    expect(json).toMatchObject({ failed: 61, invalid: 1 });
    expect(commandsIn(result.stdout)).toEqual([]);

    const commands = commandsIn(result.stderr);
    expect(commands.map((command) => command.name)).toEqual(['group', ...Array<string>(50).fill('error'), 'endgroup', 'warning']);
    expect(commands[0]?.data).toBe('listings publish: 62 rows failed or invalid, the first 50 annotated');
    // The hostile SKUs and message are shown as their text: `%0A` is still `%0A`, the line breaks are written out or
    // flattened, the legacy `##[` is broken.
    expect(commands[1]).toEqual({
      name: 'error',
      properties: { file: result.catalog, line: '2', title: 'listings publish - invalid row' },
      data: 'catalog.csv:2: sku EVIL-1\\u000a::add-mask::pwned: invalid: images_source[0]: not an absolute http(s) URL: "notaurl%0A::error::pwned\\u0023#[add-mask]pwned" (a path: give the address it is under with --image-base-url or in the profile); sku: holds a control character (U+000A) at character 7; an identifier cannot hold control characters, line breaks or direction controls',
    });
    expect(commands[2]).toEqual({
      name: 'error',
      properties: { file: result.catalog, line: '4', title: 'listings publish - failed row' },
      data: 'catalog.csv:4: sku EVIL-2\\u0023#[add-mask]pwned: HTTP 400 Bad Request: rejected %0A::error::pwned ::add-mask::pwned \\u0023#[add-mask]pwned <img src=x onerror=alert(1)> | **bold**',
    });
    expect(commands[3]?.data).toBe(`catalog.csv:5: sku SKU-000000: HTTP 400 Bad Request: rejected %0A::error::pwned ::add-mask::pwned \\u0023#[add-mask]pwned <img src=x onerror=alert(1)> | **bold**`);
    expect(commands[52]).toEqual({
      name: 'warning',
      properties: { title: 'listings publish - 12 rows not annotated' },
      data: '62 rows failed or invalid: the first 50 are annotated, 12 more are not (every row is in the report results.csv)',
    });
    expectOnlyOurCommands(result);

    // The step summary is appended to what earlier steps wrote.
    const summary = result.summary;
    expect(summary.startsWith('## an earlier step\n### listings publish · ')).toBe(true);
    expect(summary).toContain('**❌ 62 of 62 rows failed or invalid**');
    expect(summary).toContain('| published | 0 |\n| failed | 61 |\n| invalid | 1 |\n| skipped | 0 |\n| not attempted | 0 |\n| **total** | **62** |');
    expect(summary).toMatch(/62 rows in [\d.]+m?s \(\d+ rows\/s\) · 61 requests, up to \d+ at once/);
    expect(summary).toContain('#### Top errors');
    expect(summary).toContain(
      '| 61 | 400 | HTTP 400 Bad Request\\: rejected %0A\\:\\:error\\:\\:pwned \\:\\:add-mask\\:\\:pwned \\\\u0023\\#\\[add-mask\\]pwned &lt;img src=x onerror=alert\\(1\\)&gt; \\| \\*\\*bold\\*\\* | catalog.csv\\:4 |',
    );
    expect(summary).toContain('| 1 | invalid | images\\_source\\[0\\]\\: not an absolute http\\(s\\) URL\\: "notaurl%0A\\:\\:error\\:\\:pwned\\\\u0023\\#\\[add-mask\\]pwned" \\(a path\\: give the address it is under with --image-base-url or in the profile\\); sku\\: holds a control character \\(U+000A\\) at character 7; an identifier cannot hold control characters, line breaks or direction controls | catalog.csv\\:2 |');
    expect(summary).toContain('Reports: results.csv');
    expect(summary).not.toMatch(/<img|\n::/);
  });

  it('annotates rows on stderr without --json too, and the terminal row errors show hostile SKUs as text', async () => {
    const result = await run(['publish', 'catalog.csv', '--no-journal'], { GITHUB_ACTIONS: 'true' });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    const errors = commandsIn(result.stderr).filter((command) => command.name === 'error');
    expect(errors).toHaveLength(50);
    expect(commandsIn(result.stderr).at(-1)?.data).toContain('(write them all with --report FILE.csv)');
    expect(result.stderr).toContain('\nerror catalog.csv:2: sku EVIL-1\\u000a::add-mask::pwned: invalid: images_source[0]');
    expect(result.stderr).toContain('\nerror catalog.csv:4: sku EVIL-2\\u0023#[add-mask]pwned: HTTP 400 Bad Request: rejected %0A::error::pwned ::add-mask::pwned \\u0023#[add-mask]pwned');
    expectOnlyOurCommands(result);
  });

  it('writes nothing of it outside GitHub Actions', async () => {
    const result = await run(['publish', 'catalog.csv', '--report', 'results.csv'], { GITHUB_ACTIONS: undefined });
    expect(result.code, result.stderr).toBe(1);
    expect(result.summary).toBe('## an earlier step\n');
    expect(commandsIn(result.stdout)).toEqual([]);
    expect(commandsIn(result.stderr)).toEqual([]);
    expect(result.stderr).toContain('... and 57 more (see the report)');
  });
});

describe('listings publish in GitHub Actions, to several marketplaces', () => {
  it('groups errors that differ in a value as the HTML report does, and names the marketplace in annotations as the terminal does', async () => {
    const dir = tempDir('listings-gha-');
    // 40 rows, every other one to EBAY_GB, each with its own relative image path: invalid, never sent.
    const lines = [HEADER];
    for (let i = 0; i < 40; i++) lines.push(csvRow(i).replace('EBAY_US', i % 2 === 0 ? 'EBAY_US' : 'EBAY_GB').replace(`https://images.example.com/${i}/a.jpg`, `images/${i}.jpg`));
    for (let i = 40; i < 50; i++) lines.push(csvRow(i));
    writeFileSync(join(dir, 'catalog.csv'), `${lines.join('\n')}\n`);
    const summaryFile = join(dir, 'step-summary.md');
    const result = await runCli(['publish', 'catalog.csv', '--sandbox', '--no-journal'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile } });
    expect(result.code, result.stderr).toBe(1);
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toContain('| 40 | invalid | images\\_source\\[0\\]\\: not an absolute http\\(s\\) URL\\: "images/0.jpg" \\(a path\\: give the address it is under with --image-base-url or in the profile\\) (values vary: the first is shown) | catalog.csv\\:2 |');
    expect(summary).not.toContain('other kinds');
    const annotations = commandsIn(result.stderr).filter((command) => command.name === 'error');
    expect(annotations).toHaveLength(40);
    expect(annotations[1]?.data).toBe('catalog.csv:3: sku SKU-000001 on EBAY_GB: invalid: images_source[0]: not an absolute http(s) URL: "images/1.jpg" (a path: give the address it is under with --image-base-url or in the profile)');
    // The terminal's line of the same row says the same.
    expect(result.stderr).toContain('catalog.csv:3: sku SKU-000001 on EBAY_GB: invalid: images_source[0]: not an absolute http(s) URL: "images/1.jpg" (a path: give the address it is under with --image-base-url or in the profile)');
  });
});

describe('listings validate in GitHub Actions', () => {
  it('folds the error list on stdout, annotates invalid rows on stderr, appends the step summary', async () => {
    const result = await run(['validate', 'catalog.csv'], { GITHUB_ACTIONS: 'true' });
    expect(result.code, result.stderr).toBe(1);
    const out = result.stdout.trimEnd().split('\n');
    expect(out[0]).toBe('::group::listings validate: errors');
    expect(out[1]).toBe('catalog.csv:2: [EBAY_US] images_source[0]: not an absolute http(s) URL: "notaurl%0A::error::pwned\\u0023#[add-mask]pwned" (a path: give the address it is under with --image-base-url or in the profile)');
    // The SKU's line break is refused too: an identifier holds no control character (issue 21).
    expect(out[2]).toBe('catalog.csv:2: [EBAY_US] sku: holds a control character (U+000A) at character 7; an identifier cannot hold control characters, line breaks or direction controls');
    expect(out[3]).toBe('::endgroup::');
    const annotations = commandsIn(result.stderr);
    expect(annotations.map((command) => command.name)).toEqual(['group', 'error', 'endgroup']);
    expect(annotations[1]).toEqual({
      name: 'error',
      properties: { file: result.catalog, line: '2', title: 'listings validate - invalid row' },
      data: 'catalog.csv:2: sku EVIL-1\\u000a::add-mask::pwned on EBAY_US: invalid: images_source[0]: not an absolute http(s) URL: "notaurl%0A::error::pwned\\u0023#[add-mask]pwned" (a path: give the address it is under with --image-base-url or in the profile); sku: holds a control character (U+000A) at character 7; an identifier cannot hold control characters, line breaks or direction controls',
    });
    expectOnlyOurCommands(result);
    expect(result.summary).toContain('### listings validate · ');
    expect(result.summary).toContain('**❌ 1 of 62 rows invalid**');
    expect(result.summary).toContain('| valid | 61 |\n| invalid | 1 |');
  });

  it('keeps stdout pure JSON with --json', async () => {
    const result = await run(['validate', 'catalog.csv', '--json'], { GITHUB_ACTIONS: 'true' });
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 62, invalid: 1 });
    expect(commandsIn(result.stderr).map((command) => command.name)).toEqual(['group', 'error', 'endgroup']);
  });

  it('writes nothing of it outside GitHub Actions', async () => {
    const result = await run(['validate', 'catalog.csv'], { GITHUB_ACTIONS: 'false' });
    expect(result.code, result.stderr).toBe(1);
    expect(result.summary).toBe('## an earlier step\n');
    expect(commandsIn(result.stdout)).toEqual([]);
    expect(commandsIn(result.stderr)).toEqual([]);
  });
});
