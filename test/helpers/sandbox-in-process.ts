import { afterAll } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/**
 * A starter of sandboxes in this process, each on a free port of 127.0.0.1 with `defaults` under its own options;
 * every sandbox it started is closed after the test file. Call it at the top of the file.
 */
export function sandboxStarter(defaults: SandboxOptions = {}): (options?: SandboxOptions) => Promise<Sandbox> {
  const open: Sandbox[] = [];
  afterAll(async () => {
    await Promise.all(open.map((sandbox) => sandbox.close()));
  });
  return async (options = {}) => {
    const sandbox = await startSandbox({ port: 0, ...defaults, ...options });
    open.push(sandbox);
    return sandbox;
  };
}
