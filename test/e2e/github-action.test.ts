import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, cliEnv, listingsBinDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { commandsIn } from '../helpers/workflow-commands.js';

/**
 * The composite action of action.yml, run as the runner runs it: each `run:` step with bash, its `env:` evaluated
 * from the inputs (`${{ inputs.x }}`, the only expression it may use), in a fake GitHub Actions environment (a step
 * summary file, an outputs file, a workspace), against the sandbox; then its `outputs:` read from the outputs file.
 */

interface ActionYaml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; shell: string; run: string; env?: Record<string, string> }[] };
}

const ACTION = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as ActionYaml;
const KEY = 'sandbox-key';

/** `${{ inputs.name }}` with the given inputs, else the defaults; any other expression fails the test. */
function evaluate(text: string, lookup: (path: string) => string): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, path: string) => lookup(path));
}

/** Outputs as the runner reads $GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks. */
function readOutputs(path: string): Record<string, string> {
  const lines = readFileSync(path, 'utf8').split('\n');
  const outputs: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const block = /^([\w-]+)<<(.+)$/.exec(line);
    if (block) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== block[2]; i++) value.push(lines[i] ?? '');
      outputs[block[1] ?? ''] = value.join('\n');
    } else if (line.includes('=')) outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}

interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The action's outputs, as a later step reads them. */
  outputs: Record<string, string>;
  summary: string;
  workspace: string;
}

let sandbox: SandboxProcess;
let bin: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  bin = listingsBinDir();
});
afterAll(async () => {
  await sandbox?.stop();
});

/** Run the action's steps with `inputs`, the step's `env` (the secret) and `catalogs` copied from fixtures/. */
async function runAction(inputs: Record<string, string>, env: Record<string, string> = {}, catalogs: string[] = []): Promise<ActionRun> {
  const workspace = tempDir('listings-action-');
  for (const name of catalogs) copyFileSync(join(REPO_ROOT, 'fixtures', name), join(workspace, name));
  // The runner's own files live outside the workspace.
  const runner = tempDir('listings-runner-');
  const [summaryFile, outputFile] = [join(runner, 'step-summary.md'), join(runner, 'output')];
  writeFileSync(summaryFile, '');
  writeFileSync(outputFile, '');
  for (const name of Object.keys(inputs)) expect(ACTION.inputs, `input ${name}`).toHaveProperty([name]);
  const input = (name: string): string => {
    const declared = ACTION.inputs[name];
    if (declared === undefined) throw new Error(`action.yml uses an undeclared input: ${name}`);
    return inputs[name] ?? declared.default ?? '';
  };
  expect(ACTION.runs.using).toBe('composite');
  const github = { GITHUB_ACTIONS: 'true', GITHUB_ACTION_PATH: REPO_ROOT, GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile };
  let last: { code: number | null; stdout: string; stderr: string } = { code: 0, stdout: '', stderr: '' };
  for (const step of ACTION.runs.steps) {
    expect(step.shell).toBe('bash');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [
        name,
        evaluate(value, (path) => {
          const match = /^inputs\.([\w-]+)$/.exec(path);
          if (!match) throw new Error(`unexpected expression in action.yml: ${path}`);
          return input(match[1] ?? '');
        }),
      ]),
    );
    const script = join(runner, 'step.sh');
    writeFileSync(script, step.run);
    const runEnv = cliEnv({ ...github, ...env, ...stepEnv, PATH: `${bin}:${process.env.PATH ?? ''}` });
    last = await new Promise((resolve) => {
      // As the runner runs a bash step.
      execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: workspace, env: runEnv, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      });
    });
    if (last.code !== 0) break;
  }
  const stepOutputs = readOutputs(outputFile);
  const outputs = Object.fromEntries(
    Object.entries(ACTION.outputs).map(([name, output]) => [
      name,
      evaluate(output.value, (path) => {
        const match = /^steps\.publish\.outputs\.([\w-]+)$/.exec(path);
        if (!match) throw new Error(`unexpected expression in action.yml outputs: ${path}`);
        return stepOutputs[match[1] ?? ''] ?? '';
      }),
    ]),
  );
  return { ...last, outputs, summary: readFileSync(summaryFile, 'utf8'), workspace };
}

describe('the GitHub Action (action.yml)', () => {
  it('publishes a catalog with rows in error: annotations, the job summary, the reports as outputs, exit 1', async () => {
    const run = await runAction({ source: 'catalog-with-errors.csv', 'base-url': sandbox.url }, { LISTINGS_API_KEY: KEY }, ['catalog-with-errors.csv']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.outputs.reports?.split('\n')).toEqual(['listings-report/run.html', 'listings-report/results.csv', 'listings-report/results.xml', 'listings-report/summary.json']);
    expect(run.outputs['html-report']).toBe('listings-report/run.html');
    expect(run.outputs['summary-json']).toBe('listings-report/summary.json');
    for (const report of run.outputs.reports?.split('\n') ?? []) expect(existsSync(join(run.workspace, report)), report).toBe(true);
    const summary = JSON.parse(readFileSync(join(run.workspace, 'listings-report', 'summary.json'), 'utf8')) as { invalid: number; published: number };
    expect(summary.invalid).toBeGreaterThan(0);
    expect(summary.published).toBeGreaterThan(0);
    // listings itself annotated the rows and wrote the job summary, because GITHUB_ACTIONS=true.
    const errors = commandsIn(run.stderr).filter((command) => command.name === 'error');
    expect(errors.length).toBe(summary.invalid);
    expect(errors[0]?.properties.file).toBe('catalog-with-errors.csv');
    expect(run.summary).toContain('### listings publish · catalog-with-errors.csv');
    expect(run.summary).toContain('#### Top errors');
    expect(run.summary).toContain('Reports: listings-report/run.html, listings-report/results.csv, listings-report/results.xml');
    for (const text of [run.stdout, run.stderr, run.summary, JSON.stringify(run.outputs)]) expect(text).not.toContain(KEY);
  });

  it('takes the shard from the matrix env with shard: auto, and passes failed rows with fail-on-rows: false', async () => {
    const clean = await runAction({ source: 'catalog.csv', 'base-url': sandbox.url, shard: 'auto', reports: 'out/results.csv' }, { LISTINGS_API_KEY: KEY, LISTINGS_SHARD_INDEX: '1', LISTINGS_SHARD_TOTAL: '2' }, ['catalog.csv']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stderr).toContain('shard 1/2 (from LISTINGS_SHARD_INDEX/LISTINGS_SHARD_TOTAL)');
    expect(clean.outputs).toMatchObject({ 'exit-code': '0', reports: 'out/results.csv\nlistings-report/summary.json', 'html-report': '' });
    const counts = JSON.parse(readFileSync(join(clean.workspace, 'listings-report', 'summary.json'), 'utf8')) as { published: number; skipped: number };
    expect(counts.published).toBeGreaterThan(0);
    expect(counts.skipped).toBeGreaterThan(0);

    const passed = await runAction({ source: 'catalog-with-errors.csv', 'base-url': sandbox.url, 'fail-on-rows': 'false' }, { LISTINGS_API_KEY: KEY }, ['catalog-with-errors.csv']);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.outputs['exit-code']).toBe('1');
    expect(commandsIn(passed.stderr).map((command) => command.name)).toContain('warning');
  });

  it('refuses a run without a source or without a key, with exit 2 and an error annotation', async () => {
    const empty = await runAction({ source: '  \n' }, { LISTINGS_API_KEY: KEY });
    expect(empty.code).toBe(2);
    expect(commandsIn(empty.stderr)[0]?.data).toContain("the input 'source' is empty");
    const keyless = await runAction({ source: 'catalog.csv', 'base-url': sandbox.url }, {}, ['catalog.csv']);
    expect(keyless.code).toBe(2);
    expect(keyless.outputs['exit-code']).toBe('2');
    expect(keyless.stderr).toMatch(/LISTINGS_API_KEY/);
  });
});
