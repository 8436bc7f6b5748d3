import { once } from 'node:events';
import { spawnCli } from './cli.js';

/** A running `listings listen`, spawned from the built binary. */
export interface Listening {
  url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code and the full output. */
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Spawn the built `listings listen --port 0 ...args` and wait for the URL on its stderr. */
export async function startListen(args: string[], env: Record<string, string> = {}): Promise<Listening> {
  const child = spawnCli(['listen', '--port', '0', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = once(child, 'close') as Promise<[number | null]>;
  for (let waited = 0; !/receiving callbacks at (\S+)/.test(stderr); waited += 20) {
    if (waited > 10_000 || child.exitCode !== null) throw new Error(`listen did not start\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const url = /receiving callbacks at (\S+)/.exec(stderr)?.[1] ?? '';
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      const [code] = await closed;
      return { code, stdout, stderr };
    },
  };
}
