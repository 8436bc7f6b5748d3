import { UsageError } from '../../errors.js';
import { FLAGS } from '../../options/index.js';
import type { SandboxOptions } from '../../sandbox/types.js';
import { openSender, type Endpoint } from '../../run/open-sender.js';
import { flagOf } from '../flags.js';
import type { LoadedSettings } from '../settings.js';
import type { SandboxFlags } from './sandbox.js';

/** The fault injection options of `listings sandbox`, which `--sandbox` passes to its embedded one. */
export type FaultFlags = Pick<SandboxFlags, 'latency' | 'failRate' | 'failStatus' | 'rateLimit' | 'rateBurst' | 'retryAfter' | 'capacity' | 'queue' | 'dropRate' | 'spikeRate' | 'spikeMs' | 'seed'>;

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

/** The client of a run: to the configured service, or to an embedded sandbox with the faults given (`--sandbox`). */
export async function openEndpoint(flags: EndpointFlags, loaded: LoadedSettings, connections: number | undefined): Promise<Endpoint> {
  const timeouts = {
    ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
    ...(flags.connectTimeout === undefined ? {} : { connectTimeoutMs: flags.connectTimeout }),
  };
  if (flags.sandbox !== true) return openSender({ baseUrl: loaded.baseUrl(), apiKey: loaded.apiKey(), allowInsecureHttp: loaded.allowInsecureHttp }, connections, timeouts);
  return openSender({ sandbox: { ...(await sandboxFaultsOf(flags)), savedDefaults: loaded.settings.saved_defaults } }, connections, timeouts);
}
