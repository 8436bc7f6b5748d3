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
  // Dropped silently otherwise: the listing path is appended to the base URL's path alone.
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`base_url must not have a ${url.search === '' ? 'fragment (#...)' : 'query (?...)'}`, { hint: 'e.g. https://api.example.com or https://gateway.example.com/listings-api' });
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !options.allowInsecureHttp) {
    throw new ConfigError(`refusing to send the API key over plain http to ${url.host}`, {
      hint: (name) => `use https, or pass ${name('allowInsecureHttp')} if you really mean it`,
      setting: { key: 'allowInsecureHttp' },
    });
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, path: `${prefix}${LISTINGS_PATH}` };
}

/** The proxy that requests to the service go through. */
export interface ProxyRoute {
  /** The proxy's URL, credentials included: never print it (use `shown`). */
  url: URL;
  /** `http://host:port`, without credentials, for messages. */
  shown: string;
  /** Where it came from: the environment variable (e.g. `HTTPS_PROXY`), or `the proxy option`. */
  from: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The first of the variables (lowercase first, as curl and undici read them) that is set and not empty. */
function firstSet(env: Env, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
  }
  return undefined;
}

/** Read a proxy URL; `host:port` without a scheme is taken as http, as curl does. */
export function parseProxyUrl(value: string, from: string): ProxyRoute {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    throw new ConfigError(`${from} is not a proxy URL`, { hint: 'e.g. http://proxy.example.com:3128 (a login goes in the URL: http://user:password@proxy:3128)' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${from} names a ${url.protocol.slice(0, -1)} proxy: only http:// and https:// proxies are supported`);
  }
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new ConfigError(`${from}: the login in the proxy URL is not validly percent-encoded`, { hint: 'encode special characters of the user and password, e.g. @ as %40 and % as %25' });
  }
  return { url, shown: `${url.protocol}//${url.host}`, from };
}

/**
 * Whether NO_PROXY exempts `host:port` from the proxy: the rules of undici's EnvHttpProxyAgent (entries separated by
 * commas or spaces, `*` for every host, a leading `.` or `*.` for a domain and its subdomains, an optional `:port`),
 * with IPv6 addresses compared without their brackets.
 */
export function noProxyMatches(noProxy: string, hostname: string, port: number): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  for (const raw of noProxy.split(/[,\s]+/)) {
    if (raw === '') continue;
    if (raw === '*') return true;
    let entry = raw.toLowerCase();
    let entryPort = 0;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const withPort = /^([^:]+):(\d+)$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1] ?? '';
      entryPort = Number(bracketed[2] ?? 0);
    } else if (withPort) {
      entry = withPort[1] ?? '';
      entryPort = Number(withPort[2]);
    }
    entry = entry.replace(/^\*?\./, '');
    if (entryPort !== 0 && entryPort !== port) continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/**
 * The proxy for requests to `origin`, from the environment, or undefined for a direct connection. The rules of
 * undici's EnvHttpProxyAgent: `https_proxy`/`HTTPS_PROXY` for an https service, falling back to
 * `http_proxy`/`HTTP_PROXY` (the only ones read for an http service); `no_proxy`/`NO_PROXY` names the hosts reached
 * directly. One addition: while neither `no_proxy` nor `NO_PROXY` is set at all, a loopback service (a local sandbox)
 * is reached directly, as Go and most tools do; set NO_PROXY (even empty) to have it proxied.
 *
 * Plain http through a proxy hands the API key to the proxy in clear (a tunnel through it carries the bytes as they
 * are), so it is refused unless the proxy is on loopback too or `allowInsecureHttp` is given. An https service is
 * reached through a CONNECT tunnel: the proxy relays TLS it cannot read.
 */
export function proxyRoute(origin: string, options: { allowInsecureHttp?: boolean; proxy?: string | false; env?: Env } = {}): ProxyRoute | undefined {
  if (options.proxy === false) return undefined;
  const env = options.env ?? process.env;
  const target = new URL(origin);
  let route: ProxyRoute | undefined;
  if (typeof options.proxy === 'string') {
    route = parseProxyUrl(options.proxy, 'the proxy option');
  } else {
    const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
    const found = firstSet(env, names);
    if (found === undefined) return undefined;
    const noProxy = env.no_proxy ?? env.NO_PROXY;
    const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
    if (noProxy === undefined ? isLoopbackHost(target.hostname) : noProxyMatches(noProxy, target.hostname, port)) return undefined;
    route = parseProxyUrl(found.value, found.name);
  }
  if (target.protocol === 'http:' && !isLoopbackHost(route.url.hostname) && options.allowInsecureHttp !== true) {
    throw new ConfigError(`refusing to send the API key over plain http through the proxy ${route.shown} (from ${route.from}) to ${target.host}`, {
      hint: (name) => `use https (the proxy then relays an encrypted tunnel), add ${target.hostname} to NO_PROXY, or pass ${name('allowInsecureHttp')} if you really mean it`,
      setting: { key: 'allowInsecureHttp' },
    });
  }
  return route;
}
