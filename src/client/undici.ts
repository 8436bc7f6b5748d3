import { createRequire } from 'node:module';
import type { buildConnector, Dispatcher, errors, Pool, ProxyAgent, util } from 'undici';

// undici's index loads all of it (fetch, websocket, cache, mocks: some 110 files, ~100 ms); the client needs four.
// The package has no exports map, so its files can be required directly; the types are the index's.
const require = createRequire(import.meta.url);

export const PoolClass = require('undici/lib/dispatcher/pool.js') as typeof Pool;
export const buildConnectorFn = require('undici/lib/core/connect.js') as typeof buildConnector;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof errors;
export const parseHeaders = (require('undici/lib/core/util.js') as typeof util).parseHeaders;

/** undici's `Dispatcher#connect` (a CONNECT request), which its index adds to every dispatcher and we do not load. */
export type ConnectRequest = (this: Dispatcher, options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;

/**
 * The proxy support, loaded only when a proxy is used: undici's ProxyAgent (some 15 more files) and the CONNECT
 * request its tunnels are opened with.
 */
export function loadProxySupport(): { ProxyAgentClass: typeof ProxyAgent; connectRequest: ConnectRequest } {
  return {
    ProxyAgentClass: require('undici/lib/dispatcher/proxy-agent.js') as typeof ProxyAgent,
    connectRequest: require('undici/lib/api/api-connect.js') as ConnectRequest,
  };
}
