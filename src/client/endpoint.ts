import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { LISTINGS_PATH } from '../contract/schemas.js';

export interface Endpoint {
  /** `http://host:port` */
  origin: string;
  /** The path of the listing operation, with the base URL's own path prefix. */
  path: string;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * The listing endpoint of a base URL. A path prefix and a trailing slash are both fine. Plain http is refused for
 * any host but loopback, since the API key would cross the network in clear text.
 */
export function listingsEndpoint(baseUrl: string, options: { allowInsecureHttp?: boolean } = {}): Endpoint {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`base_url is not a URL: ${JSON.stringify(baseUrl)}`, { hint: 'e.g. https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`base_url must be http(s), not ${url.protocol}`);
  }
  if (url.username || url.password) throw new ConfigError('base_url must not carry credentials');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !options.allowInsecureHttp) {
    throw new ConfigError(`refusing to send the API key over plain http to ${url.host}`, {
      hint: 'use https, or pass --allow-insecure-http if you really mean it',
    });
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, path: `${prefix}${LISTINGS_PATH}` };
}
