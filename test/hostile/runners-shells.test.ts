import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, spawnCli, type CliResult } from '../helpers/cli.js';
import { startStatusService } from '../helpers/fake-services.js';
import { tempDir } from '../helpers/tmp.js';
import { commandOf } from '../helpers/workflow-commands.js';
import { wordsOf } from '../helpers/shell-words.js';
import { HEADER, csvRow } from '../helpers/publish.js';

/**
 * Hostile input against the two things that read the tool's output as instructions: a CI runner (GitHub workflow
 * commands, `::name::` at the start of a line and the legacy `##[name]` anywhere) and the user's shell (completion).
 *
 * Runners: catalog files whose names, values and a server's messages carry workflow commands are validated and
 * published with GITHUB_ACTIONS, GITHUB_WORKSPACE and GITHUB_STEP_SUMMARY set. No line of stdout or stderr may be a
 * command but the tool's own (group, error, warning: titled `listings ...`, their file property the catalog's name
 * relative to the workspace, or none), no `##[` anywhere, and the step summary stays inert markdown.
 *
 * Shells: a config file edited by hand holds a profile named `$(touch MARKER)`; bash, zsh and fish complete profile
 * names from it, and the marker must never be created nor the name offered.
 */

/** Text that takes over a runner if it reaches the start of a line, or anywhere for `##[`. */
const PAYLOAD = '\n::error::pwned\n##[error]pwned ##vso[task.complete]x';
const KEY = 'hostile-runner-key-0123456789';

/** The catalog file names of the corpus (each is also a name in the workspace's root). */
const FILE_NAMES = ['::warning file=x::pwned.csv', 'nl\n::error::x.csv', '##[error]x.csv', ' ::notice::lead.csv'];

/** A row whose SKU and image quote commands (invalid: the image is no URL), then a valid row; `n` keeps SKUs apart. */
function hostileCatalog(n: number): string {
  return [HEADER, `"::error::sku${n} ##[x]\n::warning::y",Item,EBAY_US,"::error::img ##[error]x",warehouse-1,FULFILL-1,PAY-1,RETURN-1,NEW`, csvRow(n)].join('\n') + '\n';
}

/** Services that answer every listing with a status and a message carrying the payload, by status. */
const services = new Map<number, string>();

beforeAll(async () => {
  for (const status of [422, 401]) services.set(status, (await startStatusService(status, `rejected${PAYLOAD}`)).url);
});

interface GithubRunResult extends CliResult {
  workspace: string;
  summary: string;
}

/** `listings ARGS` as a GitHub Actions step whose workspace holds every catalog of the corpus. */
async function inGithub(args: string[], answer: number): Promise<GithubRunResult> {
  const workspace = tempDir('listings-hostile-ws-');
  FILE_NAMES.forEach((name, n) => writeFileSync(join(workspace, name), hostileCatalog(n)));
  writeFileSync(join(workspace, 'bare\n::error::x.csv'), 'sku,title\nA-1,x\n');
  const summaryFile = join(tempDir(), 'summary.md');
  const result = await runCli(args, {
    cwd: workspace,
    env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: summaryFile, LISTINGS_BASE_URL: services.get(answer) ?? '', LISTINGS_API_KEY: KEY },
  });
  return { ...result, workspace, summary: existsSync(summaryFile) ? readFileSync(summaryFile, 'utf8') : '' };
}

/**
 * Every line as the runner splits it: a command only when it is the tool's own, and then with its file property one
 * of the corpus' names (relative to the workspace) or none; no `##[` (nor Azure's `##vso[`) anywhere.
 */
function expectOnlyOwnCommands(result: GithubRunResult): void {
  for (const [stream, text] of [['stdout', result.stdout], ['stderr', result.stderr]] as const) {
    expect(text, stream).not.toMatch(/##[A-Za-z]*\[/);
    expect(text, stream).not.toContain(KEY);
    for (const line of text.split(/\r\n|\r|\n/)) {
      const command = commandOf(line);
      if (command === undefined) continue;
      if (command.name === 'endgroup') {
        expect(line, stream).toBe('::endgroup::');
        continue;
      }
      expect(['group', 'error', 'warning'], `${stream}: ${line}`).toContain(command.name);
      expect(command.name === 'group' ? command.data : command.properties.title, `${stream}: ${line}`).toMatch(/^listings (validate|publish)\b/);
      expect(Object.keys(command.properties).filter((key) => !['file', 'line', 'title'].includes(key)), line).toEqual([]);
      const file = command.properties.file;
      if (file !== undefined) expect(FILE_NAMES.filter((name) => !name.includes('##[')), line).toContain(file);
    }
  }
}

/** The step summary: no tag, no command line, no legacy marker; each row of the error table has its four cells. */
function expectInertSummary(summary: string): void {
  expect(summary).not.toMatch(/<[a-z!/]/i);
  expect(summary).not.toMatch(/^\s*::/m);
  expect(summary).not.toMatch(/##[A-Za-z]*\[/);
  const errorRows = summary.split('\n').filter((line) => /^\| [\d,]+ \| /.test(line));
  for (const row of errorRows) expect(row.split(/(?<!\\)\|/), row).toHaveLength(6);
}

describe('GitHub workflow commands in outside text', () => {
  const cases: { name: string; args: string[]; answer?: number; code: number; then?: (result: GithubRunResult) => void }[] = [
    {
      name: 'validate: file names, SKUs and values that quote commands',
      args: ['validate', ...FILE_NAMES],
      code: 1,
      then: (result) => {
        // Each invalid row is annotated once, tied to its file as the repository names it, but for the name that
        // holds `##[`: no property escaping hides that from the runner, and the message says where the row is.
        const files = result.stderr.split('\n').flatMap((line) => {
          const command = commandOf(line);
          return command?.name === 'error' ? [command.properties.file ?? '(none)'] : [];
        });
        expect(files).toEqual(['::warning file=x::pwned.csv', 'nl\n::error::x.csv', '(none)', ' ::notice::lead.csv']);
        expect(result.stdout).toContain('\\u003a:warning file=x::pwned.csv:2: [EBAY_US] images_source[0]');
        expect(result.stdout).toContain('\nnl\\u000a::error::x.csv:2: [EBAY_US] images_source[0]');
      },
    },
    { name: 'validate --json: the same, stdout one JSON object', args: ['validate', '--json', ...FILE_NAMES], code: 1, then: (result) => expect(JSON.parse(result.stdout)).toMatchObject({ invalid: 4 }) },
    { name: 'validate: the settings a file lacks, named in a multi-line error', args: ['validate', 'bare\n::error::x.csv'], code: 2 },
    {
      name: 'publish: a 422 whose message carries commands, for every row of every file',
      args: ['publish', '--report', 'results.csv', ...FILE_NAMES],
      code: 1,
      then: (result) => expect(result.summary).toContain('#### Top errors'),
    },
    { name: 'publish: a 401 that stops the run, its message in the final error', args: ['publish', '##[error]x.csv'], answer: 401, code: 3 },
  ];

  it.each(cases)('$name', async ({ args, answer, code, then }) => {
    const result = await inGithub(args, answer ?? 422);
    expect(result.code, result.stderr).toBe(code);
    expectOnlyOwnCommands(result);
    expectInertSummary(result.summary);
    then?.(result);
  });
});

describe('GitHub workflow commands in a webhook body', () => {
  it('listen shows a text body that quotes commands, line by line, never as one', async () => {
    const child = spawnCli(['listen', '--port', '0'], { env: { GITHUB_ACTIONS: 'true' } });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = once(child, 'close');
    const until = async (done: () => boolean): Promise<void> => {
      for (let waited = 0; !done() && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await until(() => /receiving callbacks at \S+/.test(stderr));
    const url = /receiving callbacks at (\S+)/.exec(stderr)?.[1] ?? '';
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `hello${PAYLOAD}\n  ::add-mask::x` });
    expect(answer.status).toBe(200);
    await until(() => stdout.includes('add-mask'));
    child.kill('SIGTERM');
    await closed;
    expect(stdout).toContain('\n  \\u003a:error::pwned\n');
    expect(stdout).toContain('\n    \\u003a:add-mask::x');
    for (const text of [stdout, stderr]) {
      expect(text).not.toMatch(/##[A-Za-z]*\[/);
      expect(text.split('\n').map(commandOf).filter((command) => command !== undefined)).toEqual([]);
    }
  });
});

describe('an annotation for a file whose name holds an escape sequence, with colours on', () => {
  // Before: with FORCE_COLOR, the last guard lets colour sequences pass, and the annotation's file= property (escaped
  // only for %, CR, LF, : and ,) carried the name's ESC [8m (conceal) raw into the log the runner shows.
  it('publish: no raw ESC on stderr, and no file= for that name (the message still says where)', async () => {
    const dir = tempDir();
    const catalog = 'x\u001b[8mhid\u001b[0m.csv';
    writeFileSync(join(dir, catalog), 'sku,marketplace,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id\nA-1,BAD,l,f,p,r\n');
    const result = await runCli(['publish', catalog, '--sandbox', '--no-journal'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir, FORCE_COLOR: '1', NO_COLOR: undefined } });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain('\u001b[8m');
    const annotation = result.stderr.split('\n').map(commandOf).find((command) => command?.name === 'error');
    expect(annotation?.properties.file).toBeUndefined();
    expect(annotation?.data).toContain('x\\u001b[8mhid\\u001b[0m.csv:2: sku A-1: invalid');
  });
});

describe('the command to paste, for names every output escapes', () => {
  // Before: the names were single-quoted, then every output escaped their ESC as the text `\u001b`, so the command
  // pasted named another file; a line break split the command, and the report's name, over two lines.
  it('publish: the next step is one line each, and bash reads the catalog and the report back as themselves', async () => {
    const dir = tempDir();
    const catalog = 'e\u001b]0;x\u0007 \u202e.csv';
    const report = 'r\u001b[2J\n::error::x.csv';
    writeFileSync(join(dir, catalog), 'sku,marketplace,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id\nA-1,BAD,l,f,p,r\n');
    const result = await runCli(['publish', catalog, '--sandbox', '--no-journal', '--report', report], { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.at(-2)).toMatch(/^next {2}fix the 1 invalid row .*send the rows r\\u001b\[2J\\u000a::error::x\.csv lists/);
    expect(lines).toContain('  report: r\\u001b[2J\\u000a::error::x.csv');
    const command = lines.at(-1)!.replace(/^ {2}listings publish /, '');
    const words = wordsOf('bash', command, dir, { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' });
    expect([words[0], words.at(-1)]).toEqual([catalog, report]);
  });

  // Before: the names were single-quoted ('x##[warning]y.csv'), then every line's guard wrote the `#` opening `##[`
  // as `\u0023`, so the command pasted from the terminal or the job summary named x\u0023#[warning]y.csv.
  it('publish: a catalog and a report named with ##[ are read back by bash from the terminal and the job summary', async () => {
    const dir = tempDir();
    const catalog = 'x##[warning]y.csv';
    const report = 'r##vso[task.complete]s.csv';
    writeFileSync(join(dir, catalog), 'sku,marketplace,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id\nA-1,BAD,l,f,p,r\n');
    const summary = join(dir, 'summary.md');
    const result = await runCli(['publish', catalog, '--sandbox', '--no-journal', '--report', report], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toMatch(/##[A-Za-z]*\[/);
    const fromTerminal = result.stderr.trimEnd().split('\n').at(-1)!.replace(/^ {2}listings publish /, '');
    const fromSummary = /```sh\nlistings publish (.*)\n```/.exec(readFileSync(summary, 'utf8'))?.[1] ?? '';
    for (const command of [fromTerminal, fromSummary]) {
      const words = wordsOf('bash', command, dir, { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' });
      expect([words[0], words.at(-1)]).toEqual([catalog, report]);
    }
  });

  // Before: the job summary cut its command to copy at 500 characters, as it cuts outside text, so a catalog
  // under a deep folder gave a command ending in `…` that named no file.
  it('publish: the job summary\'s command names a catalog whose path is past 500 characters', async () => {
    const dir = tempDir();
    const folder = join('a'.repeat(200), 'b'.repeat(200), 'c'.repeat(200));
    mkdirSync(join(dir, folder), { recursive: true });
    const catalog = join(folder, 'catalog.csv');
    writeFileSync(join(dir, catalog), 'sku,marketplace,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id\nA-1,BAD,l,f,p,r\n');
    const summary = join(dir, 'summary.md');
    const result = await runCli(['publish', catalog, '--sandbox', '--no-journal'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(result.code, result.stderr).toBe(1);
    const command = /```sh\nlistings publish (.*)\n```/.exec(readFileSync(summary, 'utf8'))?.[1] ?? '';
    expect(wordsOf('bash', command, dir, { PATH: process.env.PATH, LC_ALL: 'C.UTF-8' })[0]).toBe(catalog);
  });

  // Before: `echo '{"sku":"SKU\\ID"}' > mapping.json`: sh (dash) and zsh read the backslashes, so the file held
  // "SKU\ID", which is not JSON.
  it('the mapping file it proposes, written by sh, maps a column whose name holds a backslash', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'odd.csv'), 'SKU\\ID,Titel,Market,Location,Fulfillment,Payment,Return\nMUG-1,Blue mug,EBAY_US,wh-1,F-1,P-1,R-1\n');
    const first = await runCli(['validate', 'odd.csv'], { cwd: dir });
    const write = /next runs: (.*) > mapping\.json, then/.exec(first.stderr)?.[1] ?? 'false';
    expect(spawnSync('sh', ['-c', `${write} > mapping.json`], { cwd: dir }).status).toBe(0);
    const saved = await runCli(['validate', 'odd.csv', '--mapping', 'mapping.json'], { cwd: dir });
    expect(saved.code, saved.stderr).toBe(0);
  });

  // Before: `listings validate -x.csv ...`, which stops at "unknown option '-x.csv'".
  it('validate -- -x.csv: the next step, pasted, reads the catalog again', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '-x.csv'), 'sku,marketplace,merchant_location_key,fulfillment_policy_id,payment_policy_id,return_policy_id\nA-1,BAD,l,f,p,r\n');
    const first = await runCli(['validate', '--', '-x.csv'], { cwd: dir });
    expect(first.code, first.stderr).toBe(1);
    const command = first.stderr.trimEnd().split('\n').at(-1)!.replace(/^ {2}listings /, '');
    const again = await runCli(wordsOf('bash', command, dir), { cwd: dir });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain('1 row: 0 valid, 1 invalid');
  });
});

/** A config directory whose file was written by hand, as an attacker with a say in it would. */
function handWrittenConfig(marker: string): string {
  const dir = tempDir('listings-hostile-config-');
  const profiles = { [`$(touch ${marker})`]: {}, [`a\`touch ${marker}\``]: {}, '*': {}, 'x\nnewline': {}, ok: { marketplace: 'EBAY_US' } };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ current_profile: 'ok', profiles }));
  return dir;
}

/** `listings` on PATH, as the completion scripts call it. */
function listingsOnPath(): string {
  const dir = tempDir('listings-hostile-bin-');
  const wrapper = join(dir, 'listings');
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  return dir;
}

function installed(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

describe('profile names in completion and on the command line', () => {
  const marker = join(tempDir('listings-hostile-marker-'), 'pwned');
  let configDir = '';
  let scripts: Record<'bash' | 'zsh' | 'fish', string>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    configDir = handWrittenConfig(marker);
    env = cliEnv({ LISTINGS_CONFIG_DIR: configDir, PATH: `${listingsOnPath()}:${process.env.PATH ?? ''}` });
    const dir = tempDir();
    scripts = { bash: join(dir, 'l.bash'), zsh: join(dir, 'l.zsh'), fish: join(dir, 'l.fish') };
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const result = await runCli(['completion', shell]);
      expect(result.code, result.stderr).toBe(0);
      writeFileSync(scripts[shell], result.stdout);
    }
  });

  /** Each shell's completion of `words` (the last one being completed), driven through its real function. */
  const complete: Record<'bash' | 'zsh' | 'fish', (words: string[]) => string[]> = {
    bash: (words) => run('bash', ['-c', `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _listings; printf '%s\\n' "\${COMPREPLY[@]}"`, 'probe', scripts.bash, ...words]),
    // Outside a completion widget, words and CURRENT are plain variables, and compadd a function that prints.
    zsh: (words) => run('zsh', ['-c', `compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }; source "$1"; shift; words=("$@"); CURRENT=$#; _listings`, 'probe', scripts.zsh, ...words]),
    fish: (words) => run('fish', ['-c', `source $argv[1]; complete -C (string join ' ' -- $argv[2..-1])`, scripts.fish, ...words]),
  };

  function run(shell: string, args: string[]): string[] {
    const result = spawnSync(shell, args, { cwd: tempDir(), env, encoding: 'utf8', timeout: 30_000 });
    expect(result.error).toBeUndefined();
    return result.stdout.split('\n').filter((line) => line !== '').map((line) => line.split('\t')[0] ?? '');
  }

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it.skipIf(!installed(shell))(`${shell} offers the valid names only, and runs nothing of the config`, () => {
      for (const words of [['listings', 'config', 'use', ''], ['listings', 'publish', '--profile', ''], ['listings', 'validate', '--profile', 'o']]) {
        const offered = complete[shell](words);
        // zsh's compadd matches the prefix itself; the stub here prints every word the script adds.
        const expected = words.at(-1) === 'o' && shell !== 'zsh' ? ['ok'] : ['default', 'ok'];
        expect(offered.filter((word) => !word.startsWith('-')).sort(), `${shell} ${words.join(' ')}`).toEqual(expected);
      }
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('config set refuses the name; config profiles lists only the valid ones and says which it ignores', async () => {
    const refused = await runCli(['config', 'set', '--profile', `$(touch ${marker})`, 'marketplace', 'EBAY_GB'], { env: { LISTINGS_CONFIG_DIR: configDir } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not a valid profile name');
    const listed = await runCli(['config', 'profiles'], { env: { LISTINGS_CONFIG_DIR: configDir } });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('  default\n* ok\n');
    expect(listed.stderr).toContain(`holds a profile named "$(touch ${marker})", not a valid profile name`);
    expect(existsSync(marker)).toBe(false);
  });

  const refusals: { name: string; args: string[]; env?: Record<string, string>; current?: string; says: string }[] = [
    { name: '--profile', args: ['validate', '--profile', '$(touch x)', 'x.csv'], says: 'not a valid profile name: "$(touch x)"' },
    { name: 'LISTINGS_PROFILE', args: ['config', 'list'], env: { LISTINGS_PROFILE: '$(touch x)' }, says: 'not a valid profile name (LISTINGS_PROFILE): "$(touch x)"' },
    { name: 'current_profile in the file', args: ['config', 'get', 'marketplace'], current: '$(touch x)', says: 'not a valid profile name (current_profile in ' },
    { name: 'config use (a name not in the file)', args: ['config', 'use', '$(touch y)'], says: 'not a valid profile name: "$(touch y)"' },
  ];

  it.each(refusals)('a profile name from $name that is not valid is refused, with no command to copy', async ({ args, env: extra, current, says }) => {
    const dir = tempDir();
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ ...(current === undefined ? {} : { current_profile: current }), profiles: { '$(touch x)': { marketplace: 'EBAY_US' } } }));
    const result = await runCli(args, { cwd: dir, env: { LISTINGS_CONFIG_DIR: join(dir, 'config'), ...extra } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(says);
    expect(result.stderr).not.toContain('--profile $(');
  });
});
