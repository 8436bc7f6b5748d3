import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, spawnCli } from '../helpers/cli.js';

/** Runs the CLI with its stdout closed at once, as `listings ... | head -1` closes it once head has its line. */
async function withStdoutClosed(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawnCli(args, { cwd: REPO_ROOT });
  child.stdout?.destroy();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('a reader that closes the pipe (| head)', () => {
  it('help: no EPIPE crash, no stack trace, exit 0', async () => {
    for (const command of ['publish', 'stream', 'validate']) {
      const { code, stderr } = await withStdoutClosed([command, '--help']);
      expect(stderr, command).not.toMatch(/EPIPE|Unhandled|at .*\(node:/);
      expect(code, `${command}: ${stderr}`).toBe(0);
    }
  });

  it('validate keeps its exit code (1: invalid rows) and says its summary on stderr', async () => {
    const { code, stderr } = await withStdoutClosed(['validate', join(REPO_ROOT, 'fixtures', 'catalog-with-errors.csv')]);
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\(node:/);
    expect(stderr).toMatch(/rows: \d+ valid, \d+ invalid/);
    expect(code).toBe(1);
  });
});
