import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

const URL_LINE = /^http:\/\/127\.0\.0\.1:(\d+)$/;

async function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.slice(0, text.indexOf('\n'));
}

describe('listings sandbox', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints its URL as the first stdout line, serves, and stops cleanly on ${signal}`, async () => {
      const child = spawnCli(['sandbox', '--port', '0']);
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = once(child, 'exit');
      const url = await firstLine(child.stdout!);
      expect(url).toMatch(URL_LINE);
      const reply = await fetch(`${url}/v1/listings`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' },
        body: JSON.stringify({ marketplace: 'ebay', payload: { sku: 'E2E-1', title: 'A title' } }),
      });
      expect(reply.status).toBe(201);
      child.kill(signal);
      const [code, killedBy] = (await exited) as [number | null, NodeJS.Signals | null];
      expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      expect(stderr).toContain('export LISTINGS_API_KEY=sandbox-key');
      expect(stderr).toContain(`export LISTINGS_BASE_URL=${url}`);
      expect(stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('takes its options from flags and counts what it saw (through the shared helper)', async () => {
    const key = 'sk_e2e_sandbox_custom_key_42';
    const sandbox = await startSandboxProcess(['--api-key', key, '--saved-defaults', '--seed', '1']);
    expect(sandbox.url).toMatch(URL_LINE);
    const send = (authorization: string) =>
      fetch(`${sandbox.url}/v1/listings`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ sku: 'E2E-2', marketplace: 'EBAY_US' }),
      });
    expect((await send(`Bearer ${key}`)).status).toBe(201);
    expect((await send('Bearer sandbox-key')).status).toBe(401);
    expect(await sandbox.stats()).toMatchObject({ requests: 2, created: 1, by_status: { '201': 1, '401': 1 } });
    await sandbox.stop();
    expect(sandbox.child.exitCode).toBe(0);
    expect(sandbox.stderr()).toContain('export LISTINGS_API_KEY=<the key given with --api-key>');
    expect(sandbox.stderr()).toContain('sandbox stopped: 2 requests');
    expect(sandbox.stderr()).not.toContain(key);
  });

  it('models a capacity and a queue from flags, and lists them in --help', async () => {
    const help = await runCli(['sandbox', '--help']);
    expect(help.stdout).toMatch(/--capacity <n>\s+listing requests served at once/);
    expect(help.stdout).toMatch(/--queue <n>\s+requests allowed to wait beyond --capacity/);
    const sandbox = await startSandboxProcess(['--capacity', '1', '--queue', '0', '--latency', '200']);
    const send = (sku: string) =>
      fetch(`${sandbox.url}/v1/listings`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-key', 'content-type': 'application/json' },
        body: JSON.stringify({ marketplace: 'ebay', payload: { sku, title: 'A title' } }),
      }).then((reply) => reply.status);
    expect((await Promise.all([send('CAP-1'), send('CAP-2')])).sort()).toEqual([201, 503]);
    expect(await sandbox.stats()).toMatchObject({ created: 1, throttled: 0, overloaded: 1, peak_in_flight: 1, peak_queued: 0 });
    await sandbox.stop();
    expect(sandbox.stderr()).toContain('faults: latency 200 ms, capacity 1 (queue 0)');
  });

  it('rejects bad flags with exit 2 and a message naming the flag', async () => {
    const result = await runCli(['sandbox', '--port', '0', '--fail-rate', '2', '--capacity', '0']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--fail-rate must be a share from 0 to 1 (got "2")');
    expect(result.stderr).toContain('--capacity must be a whole number of requests >= 1 (got "0")');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // A duration is read by the flag table, before the sandbox's own checks.
    const latency = await runCli(['sandbox', '--port', '0', '--latency', 'soon']);
    expect(latency.code).toBe(2);
    expect(latency.stderr).toContain("--latency: 'soon' is not a duration: use 500ms, 30s or 2m");
  });

  it('reports a port in use with exit 2', async () => {
    const sandbox = await startSandboxProcess();
    const port = URL_LINE.exec(sandbox.url)?.[1] ?? '';
    const result = await runCli(['sandbox', '--port', port]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`port ${port} is already in use`);
    await sandbox.stop();
  });

  // Node's default backlog, 511, drops the SYNs of a burst of a thousand connections (a publish at full window), and
  // each dropped one waits out TCP's 1 s retransmission: the kernel's listen queue (ss's Send-Q) is what tells.
  const ss = spawnSync('ss', ['-V']);
  it.skipIf(ss.error !== undefined)('listens with a queue of 4,096 connections (at most net.core.somaxconn), not 511', async () => {
    const sandbox = await startSandboxProcess();
    const port = URL_LINE.exec(sandbox.url)?.[1] ?? '';
    const listening = spawnSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).stdout.trim().split(/\s+/);
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(listening.slice(0, 3)).toEqual(['LISTEN', '0', String(Math.min(4096, somaxconn))]);
    await sandbox.stop();
  });
  if (ss.error !== undefined) console.warn(`SKIPPED: the sandbox's listen queue is read with ss (iproute2), absent here: ${ss.error.message}`);
});
