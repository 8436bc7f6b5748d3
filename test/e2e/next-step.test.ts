import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, listingsBinDir, REPO_ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { commandsIn } from '../helpers/workflow-commands.js';
import { interrupted, publishEnv, writeCatalog } from '../helpers/publish.js';
import { freePort, startStatusService, type FakeService } from '../helpers/fake-services.js';
import { shellWord } from '../../src/shell-words.js';

/**
 * Every run that does not exit 0 ends with the one command that continues its work (src/run/next-step.ts), the same
 * in every output: the terminal's last line, `--json`'s `next_step`, the log's `summary` event, the HTML report, the
 * step summary and the annotations. A run the service stopped is told once, at the run level, never as row errors.
 */

const WRONG_KEY = 'wrong-key-0123456789abcdef';

let sandbox: SandboxProcess;
/** A service that refuses every listing with HTTP 400. */
let refusing: FakeService;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  refusing = await startStatusService(400, 'condition is not allowed here');
});

interface GithubRun extends CliResult {
  dir: string;
  summary: string;
}

/** `listings ARGS` in a fresh directory with a 20-row catalog.csv, as a GitHub Actions step. */
async function inActions(args: string[], env: Record<string, string>): Promise<GithubRun> {
  const dir = tempDir('listings-next-');
  writeCatalog(dir, 20);
  const summaryFile = join(dir, 'step-summary.md');
  writeFileSync(summaryFile, '');
  const result = await runCli(args, { cwd: dir, env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile }, timeoutMs: 30_000 });
  return { ...result, dir, summary: readFileSync(summaryFile, 'utf8') };
}

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1)?.trim() ?? '';
}

/** One run-level annotation, and no row blamed for the stop. */
function expectOneRunLevelAnnotation(result: CliResult, reason: RegExp, command: string): void {
  const errors = commandsIn(result.stderr).filter((c) => c.name === 'error');
  expect(errors, result.stderr).toHaveLength(1);
  expect(errors[0]?.properties).toEqual({ title: 'listings publish: service unusable' });
  expect(errors[0]?.data).toMatch(reason);
  expect(errors[0]?.data).toContain(`Next: fix the cause first`);
  expect(errors[0]?.data).toContain(command);
}

describe('a run the service stopped: one run-level message with its fix, and the next step, everywhere', () => {
  it('a rejected key (the sandbox refuses an unknown key): exit 3, --resume after the fix; no row annotated; banners in the HTML report and the step summary', async () => {
    const result = await inActions(['publish', 'catalog.csv', '--report', 'results.csv', '--report', 'run.html', '--json'], publishEnv(sandbox.url, WRONG_KEY));
    expect(result.code, result.stderr).toBe(3);
    const command = 'listings publish catalog.csv --resume';
    const json = JSON.parse(result.stdout) as { failed: number; next_step: { command: string; why: string } };
    expect(json.next_step).toEqual({ command, why: 'fix the cause first (API key rejected), then continue where this run stopped' });
    expect(lastLine(result.stderr)).toBe(command);
    // The terminal tells the stop once: no `error catalog.csv:2: sku …: HTTP 401` line per refused row.
    expect(result.stderr).not.toMatch(/catalog\.csv:\d+: sku/);
    expectOneRunLevelAnnotation(result, /API key rejected/, command);

    expect(result.summary).toMatch(/^> \*\*⛔ Stopped: the service could not be used\*\*: API key rejected/m);
    expect(result.summary).toMatch(/^> \*\*Fix\*\*: /m);
    expect(result.summary).toContain('**Next step**: fix the cause first \\(API key rejected\\), then continue where this run stopped:\n\n```sh\nlistings publish catalog.csv --resume\n```');
    expect(result.summary.indexOf('⛔ Stopped')).toBeLessThan(result.summary.indexOf('| outcome | rows |'));

    const html = readFileSync(join(result.dir, 'run.html'), 'utf8');
    expect(html).toMatch(/<p class="banner stop" role="alert" id="stopped"><b>Stopped: the service could not be used<\/b>: API key rejected.*<b>Fix:<\/b> /);
    expect(html).toContain(`<code>${command}</code>`);
    expect(html.indexOf('id="stopped"')).toBeLessThan(html.indexOf('aria-label="Counts"'));
    // A 4-request run has no charts.
    expect(html).toContain('id="no-charts"');
    for (const text of [result.stdout, result.stderr, result.summary, html]) expect(text).not.toContain(WRONG_KEY);
  });

  it('a service that is down (a closed port): exit 3, the same next step in the log summary event and the annotation', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await inActions(['publish', 'catalog.csv', '--report', 'results.csv', '--log-format', 'json'], publishEnv(url));
    expect(result.code, result.stderr).toBe(3);
    const event = JSON.parse(lastLine(result.stderr)) as { event: string; next_step: { command: string; why: string } };
    expect(event.event).toBe('summary');
    expect(event.next_step.command).toBe('listings publish catalog.csv --resume');
    expect(event.next_step.why).toMatch(/^fix the cause first \(cannot connect.*\), then continue where this run stopped$/);
    expectOneRunLevelAnnotation(result, /could not be used/, 'listings publish catalog.csv --resume');
    expect(result.summary).toContain('⛔ Stopped: the service could not be used');
  });
});

describe('rows that failed: the command that sends them again, safe to paste', () => {
  it('--retry-failed of the CSV report, its hostile name quoted; pasted into sh, it sends exactly the failed rows again', async () => {
    const report = `it's $(touch PWNED) results.csv`;
    const result = await inActions(['publish', 'catalog.csv', '--report', report, '--report', 'run.html', '--json'], publishEnv(refusing.url));
    expect(result.code, result.stderr).toBe(1);
    const command = `listings publish catalog.csv --retry-failed ${shellWord(report)}`;
    expect((JSON.parse(result.stdout) as { next_step: unknown }).next_step).toEqual({ command, why: 'send the 20 failed rows again' });
    expect(lastLine(result.stderr)).toBe(command);
    expect(result.summary).toContain(`\`\`\`sh\n${command}\n\`\`\``);
    expect(readFileSync(join(result.dir, 'run.html'), 'utf8')).toContain(`<code>listings publish catalog.csv --retry-failed &#39;it&#39;\\&#39;&#39;s $(touch PWNED) results.csv&#39;</code>`);
    // Rows the service refused for themselves are still annotated, one by one.
    expect(commandsIn(result.stderr).filter((c) => c.properties.title === 'listings publish - failed row')).toHaveLength(20);

    // Pasted as it is into a POSIX shell, with `listings` on the PATH: the 20 rows go again, nothing else runs.
    const before = refusing.count();
    const env = cliEnv({ ...publishEnv(refusing.url), PATH: `${listingsBinDir()}:${process.env.PATH ?? ''}` });
    // Async: the refusing service answers in this process.
    const shell = spawn('sh', ['-c', command], { cwd: result.dir, env, stdio: 'ignore' });
    const [status] = (await once(shell, 'close')) as [number | null];
    expect(status).toBe(1);
    expect(refusing.count() - before).toBe(20);
    expect(existsSync(join(result.dir, 'PWNED'))).toBe(false);
  });
});

it('validate with invalid rows: fix the rows at the lines shown, then validate again', async () => {
  const dir = tempDir('listings-next-');
  copyFileSync(join(REPO_ROOT, 'fixtures', 'catalog-with-errors.csv'), join(dir, 'my catalog.csv'));
  const result = await runCli(['validate', 'my catalog.csv', '--marketplace', 'EBAY_US'], { cwd: dir });
  expect(result.code, result.stderr).toBe(1);
  expect(lastLine(result.stderr)).toBe(`listings validate 'my catalog.csv' --marketplace EBAY_US`);
  expect(result.stderr).toMatch(/next {2}fix the \d+ invalid rows at the lines shown, then validate again:/);
  const json = await runCli(['validate', 'my catalog.csv', '--marketplace', 'EBAY_US', '--json'], { cwd: dir });
  expect((JSON.parse(json.stdout) as { next_step: { command: string } }).next_step.command).toBe(`listings validate 'my catalog.csv' --marketplace EBAY_US`);
});

it("validate's HTML report gives the terminal's next step, as publish's does", async () => {
  const dir = tempDir('listings-next-');
  copyFileSync(join(REPO_ROOT, 'fixtures', 'catalog-with-errors.csv'), join(dir, 'my catalog.csv'));
  const result = await runCli(['validate', 'my catalog.csv', '--marketplace', 'EBAY_US', '--report', 'run.html'], { cwd: dir });
  expect(result.code, result.stderr).toBe(1);
  expect(lastLine(result.stderr)).toBe(`listings validate 'my catalog.csv' --marketplace EBAY_US`);
  const html = readFileSync(join(dir, 'run.html'), 'utf8');
  expect(html).toContain('id="next-step"');
  expect(html).toContain('<code>listings validate &#39;my catalog.csv&#39; --marketplace EBAY_US</code>');
});

it('a source that cannot be read to its end (exit 4): the error first, the next step on the last lines, in publish and validate', async () => {
  const dir = tempDir('listings-next-');
  writeFileSync(join(dir, 'cut.csv'), 'sku,title,marketplace,images_source,overrides.condition\nA1,Hat,EBAY_US,https://x.example/a.jpg,NEW\nA2,"Cap,EBAY_US,https://x.example/b.jpg,NEW\n');
  for (const [args, command] of [
    [['validate', 'cut.csv'], 'listings validate cut.csv'],
    [['publish', 'cut.csv', '--sandbox'], 'listings publish cut.csv --sandbox --resume'],
  ] as const) {
    const result = await runCli([...args], { cwd: dir, timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(4);
    expect(lastLine(result.stderr)).toBe(command);
    const error = result.stderr.indexOf('error cut.csv:3: not read to its end');
    expect(error, result.stderr).toBeGreaterThanOrEqual(0);
    expect(result.stderr.indexOf('next  make the source readable to its end'), result.stderr).toBeGreaterThan(error);
  }
});

it('an interrupt: the terminal and the HTML report give the same next step, --resume', async () => {
  const slow = await startSandboxProcess(['--latency', '20-30']);
  const dir = tempDir('listings-next-');
  const catalog = writeCatalog(dir, 400);
  const first = await interrupted(['publish', 'catalog.csv', '--concurrency', '4', '--report', 'run.html'], dir, slow.url, () => slow.stats(), 'SIGINT');
  expect(first.code, first.stderr).toBe(130);
  expect(catalog).toBe(join(dir, 'catalog.csv'));
  expect(lastLine(first.stderr)).toBe('listings publish catalog.csv --concurrency 4 --resume');
  expect(readFileSync(join(dir, 'run.html'), 'utf8')).toContain('<code>listings publish catalog.csv --concurrency 4 --resume</code>');
});
