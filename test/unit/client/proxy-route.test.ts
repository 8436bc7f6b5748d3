import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { noProxyMatches, proxyRoute } from '../../../src/client/endpoint.js';

const P = 'http://proxy.corp.example:3128';

/** The proxy shown for `origin` under `env`, or null for a direct connection. */
function via(origin: string, env: Record<string, string | undefined>, options: { allowInsecureHttp?: boolean; proxy?: string | false } = {}): string | null {
  const route = proxyRoute(origin, { ...options, env });
  return route === undefined ? null : `${route.shown} (${route.from})`;
}

describe('proxyRoute: which proxy, from which variable', () => {
  it.each([
    ['https://api.example.com', {}, null],
    ['https://api.example.com', { HTTPS_PROXY: P }, `${P} (HTTPS_PROXY)`],
    ['https://api.example.com', { https_proxy: P, HTTPS_PROXY: 'http://other:1' }, `${P} (https_proxy)`],
    // An https service falls back to HTTP_PROXY, as undici's EnvHttpProxyAgent does.
    ['https://api.example.com', { HTTP_PROXY: P }, `${P} (HTTP_PROXY)`],
    ['https://api.example.com', { HTTPS_PROXY: '  ', http_proxy: P }, `${P} (http_proxy)`],
    // An http service never reads HTTPS_PROXY.
    ['http://127.0.0.1:4010', { HTTPS_PROXY: 'http://127.0.0.1:3128', NO_PROXY: '' }, null],
    ['http://127.0.0.1:4010', { HTTP_PROXY: 'http://127.0.0.1:3128', NO_PROXY: '' }, 'http://127.0.0.1:3128 (HTTP_PROXY)'],
    // No scheme: http, as curl reads it.
    ['https://api.example.com', { HTTPS_PROXY: 'proxy.corp.example:3128' }, `${P} (HTTPS_PROXY)`],
  ] as const)('%s with %j -> %s', (origin, env, expected) => {
    expect(via(origin, env)).toBe(expected);
  });

  it('a loopback service is reached directly while NO_PROXY is not set at all; NO_PROXY set (even empty) is taken as given', () => {
    for (const origin of ['https://127.0.0.1:8443', 'https://localhost:8443', 'https://[::1]:8443']) {
      expect(via(origin, { HTTPS_PROXY: 'http://127.0.0.1:3128' })).toBeNull();
      expect(via(origin, { HTTPS_PROXY: 'http://127.0.0.1:3128', NO_PROXY: '' })).toBe('http://127.0.0.1:3128 (HTTPS_PROXY)');
      expect(via(origin, { HTTPS_PROXY: 'http://127.0.0.1:3128', no_proxy: '' })).toBe('http://127.0.0.1:3128 (HTTPS_PROXY)');
    }
  });

  it('never shows the login of the proxy', () => {
    const route = proxyRoute('https://api.example.com', { env: { HTTPS_PROXY: 'http://ci:s3cret@proxy.corp.example:3128' } });
    expect(route?.shown).toBe(P);
    expect(route?.url.password).toBe('s3cret');
  });

  it('refuses what is not an http(s) proxy URL, without echoing it', () => {
    expect(() => proxyRoute('https://api.example.com', { env: { HTTPS_PROXY: 'socks5://proxy:1080' } })).toThrow(/HTTPS_PROXY names a socks5 proxy: only http:\/\/ and https:\/\/ proxies are supported/);
    try {
      proxyRoute('https://api.example.com', { env: { HTTPS_PROXY: 'http://user:pw@[bad' } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe('HTTPS_PROXY is not a proxy URL');
    }
  });

  it('plain http through a proxy that is not on loopback hands it the key: refused unless allowed', () => {
    const env = { HTTP_PROXY: P, NO_PROXY: '' };
    expect(() => proxyRoute('http://127.0.0.1:4010', { env })).toThrow(ConfigError);
    expect(() => proxyRoute('http://127.0.0.1:4010', { env })).toThrow(/refusing to send the API key over plain http through the proxy http:\/\/proxy\.corp\.example:3128 \(from HTTP_PROXY\) to 127\.0\.0\.1:4010/);
    expect(via('http://127.0.0.1:4010', env, { allowInsecureHttp: true })).toBe(`${P} (HTTP_PROXY)`);
    expect(via('http://api.example.com', env, { allowInsecureHttp: true })).toBe(`${P} (HTTP_PROXY)`);
    // https is tunnelled: the proxy relays TLS it cannot read.
    expect(via('https://api.example.com', { HTTPS_PROXY: P })).toBe(`${P} (HTTPS_PROXY)`);
  });

  it('the proxy option overrides the environment: false for none, a URL for that one', () => {
    expect(via('https://api.example.com', { HTTPS_PROXY: P }, { proxy: false })).toBeNull();
    expect(via('https://api.example.com', { NO_PROXY: '*' }, { proxy: 'http://127.0.0.1:3128' })).toBe('http://127.0.0.1:3128 (the proxy option)');
  });
});

describe('noProxyMatches: the NO_PROXY rules of undici', () => {
  it.each([
    ['api.example.com', 'api.example.com', 443, true],
    ['example.com', 'api.example.com', 443, true],
    ['.example.com', 'api.example.com', 443, true],
    ['*.example.com', 'api.example.com', 443, true],
    ['example.com', 'badexample.com', 443, false],
    ['API.Example.com', 'api.example.com', 443, true],
    ['other.test, api.example.com', 'api.example.com', 443, true],
    ['other.test api.example.com', 'api.example.com', 443, true],
    ['api.example.com:8443', 'api.example.com', 443, false],
    ['api.example.com:8443', 'api.example.com', 8443, true],
    ['127.0.0.1', '127.0.0.1', 4010, true],
    ['127.0.0.1:4010', '127.0.0.1', 4011, false],
    ['::1', '[::1]', 4010, true],
    ['[::1]:4010', '[::1]', 4010, true],
    ['[::1]:4010', '[::1]', 4011, false],
    ['*', 'anything.test', 1, true],
    ['', 'api.example.com', 443, false],
  ] as const)('NO_PROXY=%j, %s:%d -> %s', (noProxy, host, port, expected) => {
    expect(noProxyMatches(noProxy, host, port)).toBe(expected);
  });
});
