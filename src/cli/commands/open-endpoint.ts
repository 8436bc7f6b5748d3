import { randomBytes } from 'node:crypto';
import { ListingsClient } from '../../client/listings-client.js';
import { UsageError } from '../../errors.js';
import { FLAGS } from '../../options/index.js';
import type { Sandbox, SandboxOptions } from '../../sandbox/types.js';
import { registerSecret } from '../../secrets.js';
import { flagOf } from '../flags.js';
import type { LoadedSettings } from '../settings.js';
import type { SandboxFlags } from './sandbox.js';

/** Where a run sends: the configured service, or an embedded sandbox (`--sandbox`). */
export interface Endpoint {
  client: ListingsClient;
  sandbox?: Sandbox;
}

/** The fault injection options of `listings sandbox`, which `--sandbox` passes to its embedded one. */
export type FaultFlags = Pick<SandboxFlags, 'latency' | 'failRate' | 'failStatus' | 'rateLimit' | 'retryAfter' | 'capacity' | 'queue' | 'dropRate' | 'spikeRate' | 'spikeMs' | 'seed'>;

/** The flags that say where and how long: shared by the commands that send many requests. */
export interface EndpointFlags extends FaultFlags {
  sandbox?: boolean;
  timeout?: number;
  connectTimeout?: number;
}

/** The fault options (from the flag table, as commander names their values: `fail-rate` -> `failRate`). */
const FAULT_OPTIONS = FLAGS.filter((spec) => spec.group === 'faults' && spec.commands.includes('publish')).map((spec) => ({
  flag: flagOf(spec.name),
  key: spec.name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as keyof FaultFlags,
}));

/**
 * The faults the embedded sandbox is started with; a fault option without `--sandbox`, or with a bad value, is a
 * usage error naming it (exit 2), before anything is opened or sent.
 */
export async function sandboxFaultsOf(flags: EndpointFlags): Promise<SandboxOptions> {
  const given = FAULT_OPTIONS.filter(({ key }) => flags[key] !== undefined);
  const first = given[0];
  if (first === undefined) return {};
  if (flags.sandbox !== true) {
    const named = given.map(({ flag }) => flag).join(', ');
    throw new UsageError(`${named} ${given.length === 1 ? 'is a fault' : 'are faults'} of the embedded sandbox: add --sandbox to try ${given.length === 1 ? 'it' : 'them'}, or start \`listings sandbox ${first.flag} ...\` and point LISTINGS_BASE_URL at it`);
  }
  const { sandboxOptionsFromFlags } = await import('./sandbox.js');
  return sandboxOptionsFromFlags(Object.fromEntries(given.map(({ key }) => [key, flags[key]])));
}

export async function openEndpoint(flags: EndpointFlags, loaded: LoadedSettings, connections: number): Promise<Endpoint> {
  const timeout = {
    ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
    ...(flags.connectTimeout === undefined ? {} : { connectTimeoutMs: flags.connectTimeout }),
  };
  if (flags.sandbox !== true) {
    const client = new ListingsClient({ baseUrl: loaded.baseUrl(), apiKey: loaded.apiKey(), connections, allowInsecureHttp: loaded.allowInsecureHttp, ...timeout });
    return { client };
  }
  const faults = await sandboxFaultsOf(flags);
  const { startSandbox } = await import('../../sandbox/index.js');
  // A fresh key per run: registered as a secret like any other, so it is masked wherever it might appear.
  const apiKey = `sandbox-${randomBytes(12).toString('hex')}`;
  registerSecret(apiKey);
  const sandbox = await startSandbox({ ...faults, port: 0, apiKey, savedDefaults: loaded.settings.saved_defaults });
  // The in-process sandbox is on loopback in this process: never through a proxy, whatever the environment says.
  return { client: new ListingsClient({ baseUrl: sandbox.url, apiKey, connections, proxy: false, ...timeout }), sandbox };
}
