import { ConfigError } from '../errors.js';

/** Where a worker's admin endpoint listens. */
export interface AdminAddress {
  host: string;
  port: number;
}

/**
 * `PORT`, `HOST:PORT` or `[IPv6]:PORT`. A bare port listens on loopback only: an orchestrator's probes need the pod's
 * address, so `0.0.0.0:PORT` must be asked for (the metrics say how much of a catalog moves, which is not everyone's).
 */
export function parseAdminAddress(raw: string): AdminAddress {
  const text = raw.trim();
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text);
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || port > 65_535) {
    throw new ConfigError((name) => `${name('adminListen')} ${JSON.stringify(raw)}: expected PORT, HOST:PORT or [IPv6]:PORT`, { setting: { key: 'adminListen', value: raw } });
  }
  const host = match[1] === undefined ? '127.0.0.1' : match[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}
