import { randomBytes } from 'node:crypto';
import { ListingsClient } from '../client/listings-client.js';
import { AUTO_MAX } from '../publish/flow/adaptive-limit.js';
import type { Sandbox, SandboxOptions } from '../sandbox/types.js';
import { registerSecret } from '../secrets.js';

/** Where a run sends: the configured service, or an embedded sandbox. */
export interface Endpoint {
  client: ListingsClient;
  sandbox?: Sandbox;
}

/** The service to send to, or the options (faults, saved defaults) of an embedded sandbox to start and send to. */
export type EndpointTarget = { baseUrl: string; apiKey: string; allowInsecureHttp: boolean } | { sandbox: SandboxOptions };

/** How long a request may take, in ms. */
export interface EndpointTimeouts {
  timeoutMs?: number;
  connectTimeoutMs?: number;
}

/**
 * A client of up to `connections` connections to the service (unset: as many as the limiter may reach on a slow
 * service), or to an embedded sandbox started here on a free port.
 */
export async function openSender(target: EndpointTarget, most: number | undefined, timeouts: EndpointTimeouts): Promise<Endpoint> {
  const connections = most ?? AUTO_MAX;
  if (!('sandbox' in target)) return { client: new ListingsClient({ ...target, connections, ...timeouts }) };
  const { startSandbox } = await import('../sandbox/index.js');
  // A fresh key per run: registered as a secret like any other, so it is masked wherever it might appear.
  const apiKey = `sandbox-${randomBytes(12).toString('hex')}`;
  registerSecret(apiKey);
  const sandbox = await startSandbox({ ...target.sandbox, port: 0, apiKey });
  // The in-process sandbox is on loopback in this process: never through a proxy, whatever the environment says.
  return { client: new ListingsClient({ baseUrl: sandbox.url, apiKey, connections, proxy: false, ...timeouts }), sandbox };
}
