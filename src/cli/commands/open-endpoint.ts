import { randomBytes } from 'node:crypto';
import { ListingsClient } from '../../client/listings-client.js';
import type { Sandbox } from '../../sandbox/types.js';
import { registerSecret } from '../../secrets.js';
import type { LoadedSettings } from '../settings.js';

/** Where a run sends: the configured service, or an embedded sandbox (`--sandbox`). */
export interface Endpoint {
  client: ListingsClient;
  sandbox?: Sandbox;
}

/** The flags that say where and how long: shared by the commands that send many requests. */
export interface EndpointFlags {
  sandbox?: boolean;
  timeout?: number;
  connectTimeout?: number;
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
  const { startSandbox } = await import('../../sandbox/index.js');
  // A fresh key per run: registered as a secret like any other, so it is masked wherever it might appear.
  const apiKey = `sandbox-${randomBytes(12).toString('hex')}`;
  registerSecret(apiKey);
  const sandbox = await startSandbox({ port: 0, apiKey, savedDefaults: loaded.settings.saved_defaults });
  // The in-process sandbox is on loopback in this process: never through a proxy, whatever the environment says.
  return { client: new ListingsClient({ baseUrl: sandbox.url, apiKey, connections, proxy: false, ...timeout }), sandbox };
}
