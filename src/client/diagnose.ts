import { checkConnect, checkDns, checkTls, hopOf } from './diagnose-connection.js';
import { describe, skipped, type Check, type DiagnoseOptions } from './diagnose-check.js';
import { checkClock, checkRequest } from './diagnose-request.js';
import { isLoopbackHost, listingsEndpoint, proxyRoute, type Endpoint, type ProxyRoute } from './endpoint.js';
import { libraryName, ListingsError } from '../errors.js';

export type { Check, DiagnoseOptions } from './diagnose-check.js';

/**
 * Whether the service at `baseUrl` can be used: the name resolves, a connection opens, the TLS certificate is
 * trusted (and not about to expire), and the listing operation answers an empty listing with a 4xx; then the local
 * clock against the answer's `Date`. Sends exactly one request (see PROBE_BODY), creates nothing. Through a proxy
 * (HTTPS_PROXY and friends, as the client reads them) the lookup and connection are the proxy's, and the TLS
 * handshake is the request's own. Each step is only taken when the one before it passed. Returns one Check a step,
 * in order; prints nothing.
 */
export async function diagnoseService(options: DiagnoseOptions): Promise<Check[]> {
  const name = options.name ?? libraryName;
  const checks: Check[] = [];
  let endpoint: Endpoint;
  let proxy: ProxyRoute | undefined;
  try {
    endpoint = listingsEndpoint(options.baseUrl, { allowInsecureHttp: options.allowInsecureHttp });
    proxy = proxyRoute(endpoint.origin, { allowInsecureHttp: options.allowInsecureHttp, ...(options.env === undefined ? {} : { env: options.env }) });
  } catch (error) {
    const hint = error instanceof ListingsError ? error.wordedWith(name).hint : undefined;
    return [{ name: 'base URL', status: 'fail', kind: 'config', message: describe(error), ...(hint === undefined ? {} : { fix: hint }) }];
  }
  const url = new URL(endpoint.origin);
  const hop = hopOf(url, proxy);
  if (proxy !== undefined) checks.push({ name: 'proxy', status: 'ok', message: `requests go through the proxy ${proxy.shown} (from ${proxy.from}); the next checks reach it` });
  const rest = ['DNS', 'connect', 'TLS', 'request', 'clock'];
  const stop = (why: string): Check[] => [...checks, ...rest.slice(checks.filter((c) => c.name !== 'proxy').length).map((step) => skipped(step, why))];

  checks.push(await checkDns(hop, options.timeoutMs));
  if (checks.at(-1)?.status === 'fail') return stop('the name does not resolve');
  checks.push(await checkConnect(hop, options.timeoutMs, name));
  if (checks.at(-1)?.status === 'fail') return stop('no connection');
  if (url.protocol === 'http:') {
    checks.push(
      isLoopbackHost(url.hostname)
        ? { name: 'TLS', status: 'ok', message: 'not used: plain http to a loopback host stays on this machine' }
        : { name: 'TLS', status: 'warn', message: `not used: plain http to ${url.host} (allowed by ${name('allowInsecureHttp')}): the key crosses the network in clear`, fix: 'use an https base_url' },
    );
  } else if (proxy !== undefined) {
    checks.push({ name: 'TLS', status: 'ok', message: `negotiated inside the proxy's tunnel by the request below (the proxy cannot read it)` });
  } else {
    checks.push(await checkTls(url, hop, options.timeoutMs));
    if (checks.at(-1)?.status === 'fail') return stop('the TLS handshake failed');
  }
  const { check, answer } = await checkRequest(endpoint, proxy, options);
  checks.push(check);
  checks.push(answer === undefined ? skipped('clock', 'no answer') : checkClock(answer));
  return checks;
}
