import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { unbundled } from '../helpers/bundle-sources.js';

/** A port on loopback where nothing listens: opened on port 0, then closed. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function installed(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

const POLICIES = ['--merchant-location-key', 'loc-1', '--fulfillment-policy-id', 'fp-1', '--payment-policy-id', 'pp-1', '--return-policy-id', 'rp-1'];

describe('listings doctor and listings init', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('doctor against a sandbox: every check passes with one request that creates nothing, and the key is never shown', async () => {
    const before = await sandbox.stats();
    const cwd = tempDir();
    const result = await runCli(['doctor', '--base-url', sandbox.url], { cwd, env: { LISTINGS_API_KEY: 'sandbox-key' } });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    for (const name of ['profile', 'base URL', 'API key', 'DNS', 'connect', 'TLS', 'request', 'clock', 'state dir']) {
      expect(result.stdout).toMatch(new RegExp(`^✔ ${name} `, 'm'));
    }
    expect(result.stdout).not.toMatch(/^[✖!] /m);
    expect(result.stdout).toMatch(/LISTINGS_API_KEY is set/);
    expect(result.stdout).toMatch(/answered 400/);
    expect(result.stdout + result.stderr).not.toContain('sandbox-key');
    expect(result.stderr).toMatch(/all checks passed/);
    const after = await sandbox.stats();
    expect(after.requests - before.requests).toBe(1);
    expect(after.created).toBe(before.created);
    expect((after.by_status['400'] ?? 0) - (before.by_status['400'] ?? 0)).toBe(1);
  });

  it('doctor against a refused port: exit 3, naming the connection refusal; the later checks are not taken', async () => {
    const port = await refusedPort();
    const result = await runCli(['doctor', '--base-url', `http://127.0.0.1:${port}`, '--json'], { cwd: tempDir(), env: { LISTINGS_API_KEY: 'sandbox-key' } });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const report = JSON.parse(result.stdout) as { ok: boolean; exit_code: number; checks: { name: string; status: string; message: string; fix: string | null }[] };
    expect(report).toMatchObject({ ok: false, exit_code: 3 });
    const connect = report.checks.find((check) => check.name === 'connect');
    expect(connect?.status).toBe('fail');
    expect(connect?.message).toBe(`connection refused by 127.0.0.1:${port} (ECONNREFUSED): nothing listens there`);
    expect(connect?.fix).toMatch(/port in base_url/);
    expect(report.checks.filter((check) => check.status === 'skip').map((check) => check.name)).toEqual(['TLS', 'request', 'clock']);
  });

  it('doctor with no base URL and no key: exit 2, saying what to set, and nothing sent', async () => {
    const result = await runCli(['doctor'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^✖ base URL +not set/m);
    expect(result.stdout).toMatch(/^✖ API key +LISTINGS_API_KEY is not set/m);
    expect(result.stdout).toMatch(/fix: listings init/);
    expect(result.stdout).not.toMatch(/connect/);
  });

  it('init --yes writes a working profile: config list shows it, publish --dry-run works with it', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir(), LISTINGS_API_KEY: 'sandbox-key' };
    const init = await runCli(['init', '--yes', '--base-url', sandbox.url, '--marketplace', 'ebay_us', ...POLICIES], { env, cwd: tempDir() });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stderr).toMatch(/wrote the profile default/);
    expect(init.stdout).toMatch(/^✔ request /m);
    const [list, dryRun] = await Promise.all([runCli(['config', 'list', '--json'], { env }), runCli(['publish', 'fixtures/catalog.csv', '--dry-run', '--json'], { env })]);
    const settings = (JSON.parse(list.stdout) as { settings: Record<string, { value: unknown; source: string }> }).settings;
    expect(settings.base_url).toEqual({ value: sandbox.url, source: 'profile' });
    expect(settings.marketplace).toEqual({ value: 'EBAY_US', source: 'profile' });
    expect(settings.return_policy_id).toEqual({ value: 'rp-1', source: 'profile' });
    expect(settings.saved_defaults).toEqual({ value: 'false', source: 'profile' });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ rows: 20, validated: 20, invalid: 0 });
  });

  it('init --yes without the answers it needs: a usage error naming every missing flag, and nothing written', async () => {
    const env = { LISTINGS_CONFIG_DIR: tempDir() };
    const result = await runCli(['init', '--yes', '--marketplace', 'EBAY_US'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no answer was given for --base-url, --merchant-location-key, --fulfillment-policy-id, --payment-policy-id, --return-policy-id/);
    const list = await runCli(['config', 'list', '--json'], { env });
    expect((JSON.parse(list.stdout) as { settings: Record<string, { source: string }> }).settings.marketplace?.source).toBe('unset');
  });
});

describe('help: options grouped, examples at the end, no option a command ignores', () => {
  const SENDING_FLAGS = ['--base-url', '--api-key-env', '--concurrency', '--max-concurrency', '--allow-insecure-http', '--rate', '--timeout'];
  const headings = (text: string): string[] => [...text.matchAll(/^([A-Z][A-Za-z ]+):$/gm)].map((m) => m[1] ?? '');
  const flags = (text: string): string[] => [...text.matchAll(/^ {2}(?:-\w, )?(--[a-z0-9-]+)/gm)].map((m) => m[1] ?? '');
  let help: Record<string, string> = {};

  beforeAll(async () => {
    const commands = ['publish', 'validate', 'create', 'config', 'config list', 'sandbox'];
    const results = await Promise.all(commands.map((command) => runCli([...command.split(' '), '--help'])));
    help = Object.fromEntries(commands.map((command, i) => [command, results[i]?.stdout ?? '']));
  });

  it('publish: source, mapping, listing, row selection, sending, output and profile groups, then examples', () => {
    expect(headings(help.publish ?? '')).toEqual([
      'Arguments',
      'Source options',
      'Mapping options',
      'Listing options',
      'Row selection options',
      'Sending options',
      // The embedded sandbox's faults, for --sandbox (issue 23, item 2).
      'Fault injection options',
      'Output options',
      'Profile options',
      'Options',
      'Examples',
    ]);
    expect(help.publish).toMatch(/Examples:\n {2}# .+\n {2}listings publish fixtures\/catalog\.csv --sandbox\n/);
  });

  it('validate shows no sending option', () => {
    const text = help.validate ?? '';
    expect(headings(text)).toEqual(expect.arrayContaining(['Source options', 'Mapping options', 'Listing options', 'Output options', 'Profile options', 'Examples']));
    expect(headings(text)).not.toContain('Sending options');
    for (const flag of SENDING_FLAGS) expect(flags(text)).not.toContain(flag);
    expect(text).toMatch(/^ {2}listings validate /m);
  });

  it('create shows no catalog option nor concurrency; config and config list have their own', () => {
    const create = help.create ?? '';
    expect(headings(create)).toEqual(expect.arrayContaining(['Listing options', 'Sending options', 'Output options', 'Profile options', 'Examples']));
    for (const flag of ['--format', '--map', '--concurrency', '--max-concurrency', '--report']) expect(flags(create)).not.toContain(flag);
    expect(help.config).toMatch(/Examples:\n[\s\S]*listings config set base_url/);
    const list = help['config list'] ?? '';
    expect(flags(list)).toContain('--concurrency');
    expect(flags(list)).not.toContain('--allow-insecure-http');
    expect(headings(list)).toEqual(expect.arrayContaining(['Listing options', 'Sending options', 'Output options', 'Profile options', 'Examples']));
  });

  it("the full CLI's --help loads none of the action modules of doctor, init and completion", async () => {
    const traced = join(tempDir(), 'traced.txt');
    const preload = `--import=${pathToFileURL(join(REPO_ROOT, 'bench/lib/trace-loads.js')).href}`;
    const result = await runCli(['--help'], { env: { BENCH_LOADS_FILE: traced, NODE_OPTIONS: preload }, full: true });
    expect(result.code).toBe(0);
    const loaded = unbundled(readFileSync(traced, 'utf8').split('\n'));
    expect(loaded.some((path) => path.includes('/dist/cli/commands/doctor.js'))).toBe(true);
    for (const lazy of ['doctor-action', 'client/diagnose', 'init-action', 'completion-script', '/undici/', 'readline', '/conf/']) {
      expect(loaded.filter((path) => path.includes(lazy)), lazy).toEqual([]);
    }
  });

  it('sandbox: server, fault injection and output groups; no setting of the client', () => {
    const text = help.sandbox ?? '';
    expect(headings(text)).toEqual(['Server options', 'Fault injection options', 'Output options', 'Options', 'Examples']);
    for (const flag of ['--profile', '--base-url', '--marketplace']) expect(flags(text)).not.toContain(flag);
  });
});

describe('listings completion', () => {
  const shells = { bash: installed('bash'), zsh: installed('zsh'), fish: installed('fish') };
  if (!shells.zsh) console.warn('\n!!! zsh not found: SKIPPING the zsh -n check of `listings completion zsh` (apt-get install -y zsh) !!!\n');
  if (!shells.fish) console.warn('\n--- fish not found: skipping the fish -n check of `listings completion fish` (apt-get install -y fish) ---\n');
  const scripts: Record<string, string> = {};

  beforeAll(async () => {
    const dir = tempDir();
    await Promise.all(
      (['bash', 'zsh', 'fish'] as const).map(async (shell) => {
        const result = await runCli(['completion', shell]);
        expect(result.code, result.stderr).toBe(0);
        scripts[shell] = join(dir, `listings.${shell}`);
        writeFileSync(scripts[shell], result.stdout);
      }),
    );
  });

  it.skipIf(!shells.bash)('bash accepts the bash script, which completes commands, choices and setting keys', () => {
    expect(spawnSync('bash', ['-n', scripts.bash ?? '']).status).toBe(0);
    const probe = (words: string[]): string[] => {
      const script = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _listings; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const result = spawnSync('bash', ['-c', script, 'probe', scripts.bash ?? '', ...words], { encoding: 'utf8' });
      return result.stdout.split('\n').filter((line) => line !== '');
    };
    expect(probe(['listings', ''])).toEqual(expect.arrayContaining(['publish', 'validate', 'doctor', 'init', 'completion', 'config']));
    expect(probe(['listings', 'publish', '--format', ''])).toEqual(['csv', 'tsv', 'json', 'ndjson']);
    expect(probe(['listings', 'config', 'set', 'base_'])).toEqual(['base_url']);
    expect(probe(['listings', 'validate', '--co'])).toEqual(['--condition']);
  });

  it.skipIf(!shells.zsh)('zsh accepts the zsh script', () => {
    const result = spawnSync('zsh', ['-n', scripts.zsh ?? ''], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
  });

  it.skipIf(!shells.fish)('fish accepts the fish script', () => {
    const result = spawnSync('fish', ['-n', scripts.fish ?? ''], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
  });
});
