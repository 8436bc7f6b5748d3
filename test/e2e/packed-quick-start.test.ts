import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cliEnv } from '../helpers/cli.js';
import { fencedBlocks } from '../helpers/fenced-blocks.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The quick start as someone who installed the package meets it: the package is packed (`npm pack`, as `npm
 * publish` would), installed into an empty directory, and the README's `installed` blocks are run there. npm
 * installs from its cache when it can (`--offline`), else from the registry.
 */

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/** The environment of a nested npm: this run's npm settings (`npm_config_*` when run by `npm test`) left out. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && !name.startsWith('LISTINGS_')));
}

describe('the quick start from the packed package, in an empty directory', () => {
  it("packs fixtures/ with the package, installs the tarball, and runs the README's installed quick start", async () => {
    const dir = tempDir('listings-packed-');
    const [pack, app] = [join(dir, 'pack'), join(dir, 'app')];
    mkdirSync(pack);
    mkdirSync(app);
    // dist/ is fresh (vitest's global setup builds it): the prepare script's build is not run again.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', pack], REPO_ROOT, npmEnv(), 60_000);
    expect(packed.code, packed.stderr).toBe(0);
    const [tarball] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const shipped = tarball?.files.map((file) => file.path) ?? [];
    expect(shipped).toContain('fixtures/catalog.csv');
    expect(shipped).toContain('bin/listings.js');

    writeFileSync(join(app, 'package.json'), '{ "private": true }\n');
    const install = (network: '--offline' | '--prefer-offline') =>
      run('npm', ['install', network, '--no-audit', '--no-fund', '--prefix', app, join(pack, tarball?.filename ?? '')], app, npmEnv(), 150_000);
    let installed = await install('--offline');
    if (installed.code !== 0) installed = await install('--prefer-offline');
    expect(installed.code, installed.stderr).toBe(0);

    const blocks = fencedBlocks('README.md', readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).filter((block) => block.kind === 'shell' && block.flags.includes('installed'));
    expect(blocks.map((block) => block.code).join('')).toMatch(/npx listings publish \S+\.csv --sandbox/);
    for (const block of blocks) {
      // A user's shell: no LISTINGS_* variable, HOME and the config in temporary directories, npm's own cache.
      const env = cliEnv({ npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '', '.npm'), npm_config_offline: 'true' });
      const ran = await run('bash', ['-e', '-o', 'pipefail', '-c', block.code], app, env, 60_000);
      expect(ran.code, `${block.where}\n${block.code}\n--- stderr\n${ran.stderr}\n--- stdout\n${ran.stdout}`).toBe(0);
      if (/listings publish/.test(block.code)) expect(ran.stderr).toContain('20 published');
      if (/listings validate/.test(block.code)) expect(`${ran.stdout}${ran.stderr}`).toMatch(/20 rows?.*valid/);
    }
  }, 300_000);
});
