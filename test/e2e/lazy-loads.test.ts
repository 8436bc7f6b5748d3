import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { publishEnv } from '../helpers/publish.js';
import { unbundled } from '../helpers/bundle-sources.js';

// bench's tracer records every module resolved, ESM and CommonJS; record-loads.js adds the CommonJS cache and Node's own.
const PRELOADS = ['bench/lib/trace-loads.js', 'test/helpers/record-loads.js'].map((path) => `--import=${pathToFileURL(join(REPO_ROOT, path)).href}`);

interface Loads {
  /** Paths and URLs of the modules loaded. */
  modules: string[];
  /** Node's own loaded modules, e.g. `NativeModule internal/deps/undici/undici`. */
  builtins: string[];
}

/** Runs the CLI with the loads recorded at exit (a file of the CLI's bundle as the modules of dist it holds). */
async function runRecorded(args: string[], env: Record<string, string> = {}, full = false): Promise<{ code: number | null; stdout: string; stderr: string; loads: Loads }> {
  const dir = tempDir();
  const [file, traced] = [join(dir, 'loads.json'), join(dir, 'traced.txt')];
  const result = await runCli(args, { env: { ...env, LOADS_FILE: file, BENCH_LOADS_FILE: traced, NODE_OPTIONS: PRELOADS.join(' ') }, full });
  const loads = JSON.parse(readFileSync(file, 'utf8')) as Loads;
  return { ...result, loads: { ...loads, modules: unbundled([...loads.modules, ...readFileSync(traced, 'utf8').split('\n')]) } };
}

function loaded(loads: Loads, fragment: string): string[] {
  return loads.modules.filter((path) => path.includes(fragment));
}

describe('start-up: heavy modules load only when needed', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('validating a clean catalog loads neither zod nor undici', async () => {
    const result = await runRecorded(['validate', 'fixtures/catalog.csv']);
    expect(result.code, result.stderr).toBe(0);
    expect(loaded(result.loads, '/node_modules/zod/')).toEqual([]);
    expect(loaded(result.loads, '/node_modules/undici/')).toEqual([]);
    expect(loaded(result.loads, '/node_modules/stream-json/')).toEqual([]);
  });

  it('publishing a clean CSV catalog loads no zod, not undici\'s index, not Node\'s built-in undici, no stream-json', async () => {
    const result = await runRecorded(['publish', 'fixtures/catalog.csv'], publishEnv(sandbox.url));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/20 published/);
    expect(loaded(result.loads, '/node_modules/zod/')).toEqual([]);
    expect(loaded(result.loads, '/node_modules/undici/lib/dispatcher/pool.js').length).toBeGreaterThan(0);
    expect(loaded(result.loads, '/node_modules/undici/index.js')).toEqual([]);
    expect(loaded(result.loads, '/node_modules/stream-json/')).toEqual([]);
    expect(result.loads.builtins.filter((name) => name.includes('undici'))).toEqual([]);
    // The Kafka client and the stream are loaded by `listings stream` only.
    expect(loaded(result.loads, '/node_modules/kafkajs/')).toEqual([]);
    expect(loaded(result.loads, '/dist/stream/')).toEqual([]);
  });

  it('--version answers from package.json before any of the CLI is loaded: no commander, nothing of dist/', async () => {
    const result = await runRecorded(['--version']);
    expect(result.code, result.stderr).toBe(0);
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(result.stdout).toBe(`${version}\n`);
    expect(loaded(result.loads, '/node_modules/commander/')).toEqual([]);
    expect(loaded(result.loads, '/dist/')).toEqual([]);
  });

  it("the full CLI's help of a command declares that command alone: no other command's module, no error wording", async () => {
    const result = await runRecorded(['publish', '--help'], {}, true);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: listings publish /);
    expect(loaded(result.loads, '/dist/cli/commands/publish.js').length).toBeGreaterThan(0);
    const others = ['stream', 'enqueue', 'validate', 'create', 'init', 'doctor', 'config', 'completion', 'sandbox', 'listen'];
    expect(others.flatMap((name) => loaded(result.loads, `/dist/cli/commands/${name}.js`))).toEqual([]);
    expect(loaded(result.loads, '/dist/cli/report-error.js')).toEqual([]);
  });

  it('a catalog with an invalid row loads zod and gets its wording', async () => {
    const file = join(tempDir(), 'one-bad.csv');
    const [header, first] = readFileSync(join(REPO_ROOT, 'fixtures/catalog.csv'), 'utf8').split('\n');
    writeFileSync(file, `${header}\n${first}\n${first?.replace(/^[^,]+/, '')}\n`);
    const result = await runRecorded(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim()).toBe(`${file}:3: [EBAY_US] sku: is required`);
    expect(loaded(result.loads, '/node_modules/zod/').length).toBeGreaterThan(0);
  });
});
