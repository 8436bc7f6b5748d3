/**
 * "The sandbox taking one core": on a machine with two or more cores, the servers (responder, sandbox) run pinned to
 * the last core and everything measured (listings, the bare programs, autocannon in this process) to the others, so
 * that client and server never share a core by the scheduler's chance. Unpinned, both clients swing between two
 * speeds from run to run (the same program: 17k or 24k rows/s) as the scheduler places the threads. Uses taskset
 * (util-linux); without it, or with --no-pin, nothing is pinned.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

const cores = cpus().length;
let plan;

/** Pins this process (and so every child it starts) to the client cores. Returns the plan, or undefined. */
export function pinClients(enabled = true) {
  if (!enabled || cores < 2) return undefined;
  const clients = cores === 2 ? '0' : `0-${cores - 2}`;
  const server = String(cores - 1);
  const result = spawnSync('taskset', ['-a', '-p', '-c', clients, String(process.pid)], { stdio: 'ignore' });
  if (result.status !== 0) return undefined;
  plan = { clients, server, tool: 'taskset' };
  return plan;
}

/** `command args` run on the server core, when pinning is on. */
export function onServerCore(command, args) {
  return plan ? ['taskset', ['-c', plan.server, command, ...args]] : [command, args];
}
