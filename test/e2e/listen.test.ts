import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { ndjsonLines as lines, post, startListen, until } from '../helpers/listen-process.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';
import { startKeepAliveApp, type KeepAliveApp } from '../helpers/keep-alive-app.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';
import { unbundled } from '../helpers/bundle-sources.js';

async function publish500(sandbox: SandboxProcess): Promise<void> {
  const dir = tempDir();
  const catalog = writeCatalog(dir, 500);
  const result = await runCli(['publish', catalog, '--quiet'], { cwd: dir, env: publishEnv(sandbox.url) });
  expect(result.code, result.stderr).toBe(0);
}

describe('listings listen with the sandbox webhooks', () => {
  it('receives, prints and records the 500 callbacks of a 500-row publish once each; --replay sends them again byte for byte', async () => {
    const dir = tempDir();
    const [recording, copy] = [join(dir, 'hooks.ndjson'), join(dir, 'copy.ndjson')];
    const secret = 'whsec_e2e_right_secret_1';
    const listen = await startListen(['--record', recording, '--secret-env', 'HOOK_SECRET'], { HOOK_SECRET: secret });
    const sandbox = await startSandboxProcess(['--webhook-url', listen.url, '--webhook-secret', secret]);
    await publish500(sandbox);
    await until('500 callbacks delivered', async () => (await sandbox.stats()).webhooks?.delivered === 500);
    expect((await sandbox.stats()).webhooks).toEqual({ sent: 500, delivered: 500, failed_attempts: 0, given_up: 0, pending: 0 });

    // A redelivery of an event already received: answered 2xx, printed as a duplicate, not recorded again.
    const first = lines(recording)[0] as { body: string; headers: Record<string, string> };
    expect(await post(listen.url, first.body, { 'listings-signature': first.headers['listings-signature'] ?? '' })).toBe(200);
    const done = await listen.stop();
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('listen stopped: 500 received, 0 rejected, 1 duplicates');
    expect(done.stdout.match(/^\S+ {2}#\d+ {2}listing\.created {2}sku SKU-\d{6} {2}status ready/gm)).toHaveLength(500);
    expect(done.stdout.match(/duplicate {2}listing\.created/g)).toHaveLength(1);
    // The secret is never shown.
    expect(done.stdout + done.stderr).not.toContain(secret);

    const recorded = lines(recording) as { body: string; body_encoding: string; headers: Record<string, string> }[];
    expect(recorded).toHaveLength(500);
    const events = recorded.map((line) => JSON.parse(line.body) as { id: string; type: string; data: { sku: string } });
    expect(new Set(events.map((event) => event.id)).size).toBe(500);
    expect(new Set(events.map((event) => event.data.sku)).size).toBe(500);
    expect(recorded.every((line) => line.body_encoding === 'utf8' && /^t=\d+,v1=[0-9a-f]{64}$/.test(line.headers['listings-signature'] ?? ''))).toBe(true);

    const second = await startListen(['--record', copy]);
    const replay = await runCli(['listen', '--replay', recording, '--forward-to', second.url]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('replayed 500 callbacks');
    expect(replay.stderr).toContain('500 answered 2xx, 0 failed');
    const stopped = await second.stop();
    expect(stopped.stderr).toContain('listen stopped: 500 received');
    const replayed = lines(copy) as { body: string; method: string; headers: Record<string, string> }[];
    expect(replayed.map((line) => line.body)).toEqual(recorded.map((line) => line.body));
    expect(replayed.map((line) => line.headers['listings-signature'])).toEqual(recorded.map((line) => line.headers['listings-signature']));
    expect(replayed.every((line) => line.method === 'POST')).toBe(true);
  });

  it('with a wrong secret every callback is rejected with 401, and the sandbox retries each', async () => {
    const listen = await startListen(['--secret-env', 'HOOK_SECRET', '--json'], { HOOK_SECRET: 'whsec_e2e_listen_side' });
    const sandbox = await startSandboxProcess(['--webhook-url', listen.url, '--webhook-secret', 'whsec_e2e_other_side', '--webhook-attempts', '3', '--webhook-backoff-ms', '50']);
    await publish500(sandbox);
    await until('every callback given up', async () => (await sandbox.stats()).webhooks?.given_up === 500);
    const hooks = (await sandbox.stats()).webhooks;
    expect(hooks).toEqual({ sent: 500, delivered: 0, failed_attempts: 1500, given_up: 500, pending: 0 });
    const done = await listen.stop();
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('listen stopped: 0 received, 1500 rejected, 0 duplicates');
    const printed = done.stdout.trim().split('\n').map((line) => JSON.parse(line) as { outcome: string; http_status: number; reason: string });
    expect(printed).toHaveLength(1500);
    expect(printed.every((line) => line.outcome === 'rejected' && line.http_status === 401 && line.reason === 'mismatch')).toBe(true);
  });
});

describe('listings listen on its own', () => {
  it('escapes what a hostile body holds: no escape sequence reaches the terminal raw', async () => {
    const listen = await startListen([]);
    const jsonBody = JSON.stringify({ id: 'evt_h1', type: 'listing.\u009b2Jcreated', data: { sku: 'SKU\u202eevil', status: 'ready\u009d0;title\u009c' } });
    expect(await post(listen.url, jsonBody)).toBe(200);
    expect(await post(listen.url, 'not json \u001b[2J\u001b]0;owned\u0007 \u001b[31mred\r\nend', { 'content-type': 'text/plain' })).toBe(200);
    expect(await post(`${listen.url}x\u0085y`.replace('\u0085', '%C2%85'), Buffer.from([0xff, 0x1b, 0x07]))).toBe(200);
    const done = await listen.stop();
    expect(done.code).toBe(0);
    const all = done.stdout + done.stderr;
    // eslint-disable-next-line no-control-regex -- control characters are what must be absent
    expect(all).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(done.stdout).toContain('listing.\\u009b2Jcreated');
    expect(done.stdout).toContain('\\u001b[2J\\u001b]0;owned\\u0007');
    expect(done.stdout).toContain('(3 bytes, not UTF-8 text)');
    expect(done.stderr).toContain('3 received');
  });

  it('answers 413 beyond --max-body, with or without a Content-Length, and 200 up to it', async () => {
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const listen = await startListen(['--max-body', '100', '--record', recording, '--json']);
    expect(await post(listen.url, 'x'.repeat(100), { 'content-type': 'text/plain' })).toBe(200);
    expect(await post(listen.url, 'x'.repeat(101))).toBe(413);
    expect(await post(listen.url, 'y'.repeat(5_000), {}, true)).toBe(413);
    const done = await listen.stop();
    expect(done.stderr).toContain('listen stopped: 1 received, 2 rejected');
    const printed = done.stdout.trim().split('\n').map((line) => JSON.parse(line) as { outcome: string; http_status: number });
    expect(printed.map((line) => [line.outcome, line.http_status])).toEqual([
      ['accepted', 200],
      ['rejected', 413],
      ['rejected', 413],
    ]);
    expect(lines(recording).map((line) => line.body)).toEqual(['x'.repeat(100)]);
  });

  it('forwards each callback live (same bytes), reports a failed forward without stopping, and --replay exits 1 when a forward fails', async () => {
    const dir = tempDir();
    const [recording, received] = [join(dir, 'rec.ndjson'), join(dir, 'received.ndjson')];
    const target = await startListen(['--record', received, '--path', '/hooks']);
    const listen = await startListen(['--forward-to', `${target.url}`, '--record', recording]);
    const body = Buffer.concat([Buffer.from('{"id":"evt_f1","sku":"F-1"}'), Buffer.from([])]);
    expect(await post(listen.url, body, { authorization: 'Bearer do-not-forward' })).toBe(200);
    const gone = await startListen([]);
    const goneUrl = gone.url;
    await gone.stop();
    await until('the forward', () => /#1 forwarded: 200/.test(listen.stdout()));
    const targetDone = await target.stop();
    expect(await post(listen.url, '{"id":"evt_f2"}')).toBe(200);
    await until('the failed forward', () => /#2 forward failed: ECONNREFUSED/.test(listen.stdout()));
    const done = await listen.stop();
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('listen stopped: 2 received, 0 rejected, 0 duplicates, 1 forwarded (1 failed)');
    expect(targetDone.stderr).toContain('1 received');
    const forwarded = lines(received) as { body: string; path: string; headers: Record<string, string> }[];
    expect(forwarded.map((line) => [line.path, line.body])).toEqual([['/hooks', body.toString('utf8')]]);
    expect(forwarded[0]?.headers.authorization).toBeUndefined();
    expect(readFileSync(recording, 'utf8')).not.toContain('do-not-forward');

    const replay = await runCli(['listen', '--replay', recording, '--forward-to', goneUrl, '--json']);
    expect(replay.code).toBe(1);
    expect(replay.stdout.trim().split('\n')).toHaveLength(2);
    expect(replay.stderr).toContain('0 answered 2xx, 2 failed');
  });

  it('sends a callback again, once, on a new connection when the app closed the kept-alive connection unanswered (its keep-alive timeout), live and in a --replay', async () => {
    // The app answers the first request of its first connection, and closes that connection on the second unread.
    const closingSecond = (): Promise<KeepAliveApp> => startKeepAliveApp((onConnection) => (onConnection === 1 ? 'close' : 'answer'));
    const dir = tempDir();
    const recording = join(dir, 'rec.ndjson');
    const app = await closingSecond();
    const listen = await startListen(['--forward-to', app.url, '--record', recording]);
    for (const id of ['evt_k1', 'evt_k2']) {
      expect(await post(listen.url, `{"id":"${id}"}`)).toBe(200);
      await until(`the forward of ${id}`, () => app.received.some((seen) => seen.body.includes(id) && seen.connection === (id === 'evt_k1' ? 0 : 1)));
    }
    await until('the second forward', () => /#2 forwarded: 204/.test(listen.stdout()));
    const done = await listen.stop();
    expect(done.stderr).toContain('2 forwarded');
    expect(done.stdout).not.toContain('forward failed');
    expect(app.received.map((seen) => [seen.connection, seen.body])).toEqual([
      [0, '{"id":"evt_k1"}'],
      [0, '{"id":"evt_k2"}'],
      [1, '{"id":"evt_k2"}'],
    ]);
    await app.close();

    const replayApp = await closingSecond();
    const replay = await runCli(['listen', '--replay', recording, '--forward-to', replayApp.url]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('2 answered 2xx, 0 failed');
    expect(replayApp.received.map((seen) => seen.connection)).toEqual([0, 0, 1]);
    await replayApp.close();
  });

  it('refuses a --secret-env naming an unset variable, and --replay without --forward-to (exit 2)', async () => {
    const unset = await runCli(['listen', '--secret-env', 'NO_SUCH_HOOK_SECRET']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('NO_SUCH_HOOK_SECRET is not set');
    const noTarget = await runCli(['listen', '--replay', 'hooks.ndjson']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('--replay needs --forward-to');
  });

  it('the full CLI\'s `listings listen --help` loads none of the listen modules (`--version` loads no module of dist/ at all)', async () => {
    const dir = tempDir();
    const traced = join(dir, 'traced.txt');
    const preload = `--import=${pathToFileURL(join(REPO_ROOT, 'bench/lib/trace-loads.js')).href}`;
    const result = await runCli(['listen', '--help'], { env: { BENCH_LOADS_FILE: traced, NODE_OPTIONS: preload }, full: true });
    expect(result.code).toBe(0);
    const modules = unbundled(readFileSync(traced, 'utf8').split('\n'));
    expect(modules.some((path) => path.includes('/dist/cli/main.js'))).toBe(true);
    expect(modules.filter((path) => path.includes('/dist/listen/') || path.includes('listen-action') || path.includes('/dist/sandbox/webhooks'))).toEqual([]);
  });
});
