/** Running the measured programs: wall time and peak RSS of one child process, and long-running servers. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { onServerCore } from './pinning.js';

const GNU_TIME = '/usr/bin/time';
const KEEP = 64 * 1024;

// Every child runs in a process group of its own (GNU time's child included), so that a benchmark stopped early
// (Ctrl-C, a test's timeout) can end exactly what it started and leave nothing behind.
const children = new Set();

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

process.once('exit', () => {
  for (const child of children) killGroup(child);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of children) killGroup(child);
    process.exit(130);
  });
}

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** spawn() in a process group of its own, ended (SIGKILL) with the benchmark if still running then. */
export function spawnTracked(command, args, options = {}) {
  return track(spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options, detached: true }));
}

/** True when GNU time is there to give an exact peak RSS; otherwise /proc/<pid>/status VmHWM is polled. */
export const hasGnuTime = existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true']).status === 0;

function tail(chunks) {
  const text = Buffer.concat(chunks).toString('utf8');
  return text.length > KEEP ? text.slice(-KEEP) : text;
}

function readHwmKb(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `command args` to its end. Resolves { code, signal, wallMs, maxRssKb, cpuMs, stdout, stderr } (the last
 * 64 KB of each stream; cpuMs, user + system time, only where GNU time is there). Wall time is taken around the spawned process, so start-up is included for every contestant alike.
 */
export function measure(command, args, { cwd, env, timeoutMs = 30 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const dir = hasGnuTime ? mkdtempSync(join(tmpdir(), 'bench-time-')) : undefined;
    const timeFile = dir ? join(dir, 'time.txt') : undefined;
    const [cmd, argv] = hasGnuTime ? [GNU_TIME, ['-f', '%M %U %S', '-o', timeFile, command, ...args]] : [command, args];
    const started = performance.now();
    const child = track(spawn(cmd, argv, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
    const out = [];
    const err = [];
    const keep = (list) => {
      let kept = 0;
      return (chunk) => {
        list.push(chunk);
        kept += chunk.length;
        while (list.length > 1 && kept - list[0].length >= KEEP) kept -= list.shift().length;
      };
    };
    child.stdout.on('data', keep(out));
    child.stderr.on('data', keep(err));
    let hwm = 0;
    const poll = hasGnuTime ? undefined : setInterval(() => (hwm = Math.max(hwm, readHwmKb(child.pid))), 20);
    const timer = setTimeout(() => killGroup(child), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      reject(error);
    });
    child.on('close', (code, signal) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      let maxRssKb = hwm;
      let cpuMs;
      if (timeFile) {
        const lines = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n') : [];
        const match = /^(\d+) ([\d.]+) ([\d.]+)$/.exec(lines.at(-1) ?? '');
        maxRssKb = match ? Number(match[1]) : 0;
        cpuMs = match ? (Number(match[2]) + Number(match[3])) * 1000 : undefined;
        // GNU time reports "Command exited with non-zero status N" on the first line; the code is ours already.
        rmSync(dir, { recursive: true, force: true });
      }
      resolve({ code, signal, wallMs, maxRssKb, cpuMs, stdout: tail(out), stderr: tail(err) });
    });
  });
}

/** Wall time of a short command, synchronously (no wrapper: used for start-up times). */
export function wallOnce(command, args, { cwd, env } = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const wallMs = performance.now() - started;
  return { code: result.status, wallMs, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const HTTP_URL = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+[^\s'"]*/;

/**
 * Starts a server process (on the server core, when pinning is on) and resolves once it prints an http URL (on
 * stdout or stderr), or what `ready` matches (its first group, if any: e.g. the Kafka mock's bootstrap address).
 * `stdin: 'pipe'` keeps its stdin open until stop() (kcat serves its mock cluster as long as it is).
 * Returns { url, child, stop() }. stop() ends exactly this child.
 */
export function startServer(command, args, { cwd, env, timeoutMs = 20_000, ready = HTTP_URL, stdin = 'ignore' } = {}) {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = onServerCore(command, args);
    const child = track(spawn(cmd, argv, { cwd, env: env ?? process.env, stdio: [stdin, 'pipe', 'pipe'], detached: true }));
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} printed no URL (nor what it was told to wait for) within ${timeoutMs} ms: ${seen.slice(-500)}`));
    }, timeoutMs);
    const stop = () =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('close', () => done());
        child.stdin?.end();
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      });
    const onData = (chunk) => {
      seen += String(chunk);
      const match = ready.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        // Keep draining, so a chatty server never blocks on a full pipe.
        child.stdout.resume();
        child.stderr.resume();
        resolve({ url: (match[1] ?? match[0]).replace(/\/+$/, ''), child, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before printing a URL: ${seen.slice(-500)}`));
    });
  });
}
