import { describe, expect, it } from 'vitest';
import { errorMessage, parseErrorBody } from '../../../src/client/error-message.js';
import { isRetryable, isSystemic } from '../../../src/client/classify.js';
import { listingsEndpoint, isLoopbackHost } from '../../../src/client/endpoint.js';
import { ApiError, ConfigError, NetworkError, TimeoutError, UsageError } from '../../../src/errors.js';

describe('errorMessage', () => {
  it.each([
    ['{"message":"sku is taken"}', 'HTTP 409 Conflict: sku is taken'],
    ['{"error":"invalid_token"}', 'HTTP 401 Unauthorized: invalid_token'],
    ['{"error":{"code":"x","message":"bad key"}}', 'HTTP 401 Unauthorized: bad key'],
    ['{"detail":"Not found"}', 'HTTP 404 Not Found: Not found'],
    ['{"errors":[{"field":"sku","message":"required"},"title too long"]}', 'HTTP 400 Bad Request: sku: required; title too long'],
    ['{"message":"invalid","errors":[{"path":["images_source",0],"message":"bad url"}]}', 'HTTP 400 Bad Request: invalid: images_source.0: bad url'],
    ['{"title":"Too Many Requests","status":429}', 'HTTP 429 Too Many Requests: Too Many Requests'],
    ['plain text failure', 'HTTP 500 Internal Server Error: plain text failure'],
    ['<html><head><style>p{}</style></head><body><h1>Bad Gateway</h1></body></html>', 'HTTP 502 Bad Gateway: Bad Gateway'],
    ['', 'HTTP 503 Service Unavailable'],
    ['{}', 'HTTP 400 Bad Request'],
    ['{"unexpected": true', 'HTTP 400 Bad Request: {"unexpected": true'],
  ])('%s', (raw, expected) => {
    const status = Number(/HTTP (\d+)/.exec(expected)![1]);
    expect(errorMessage(status, parseErrorBody(raw))).toBe(expected);
  });
  it('truncates huge bodies to one short line', () => {
    const message = errorMessage(500, parseErrorBody('x'.repeat(1_000_000)));
    expect(message.length).toBeLessThan(400);
    expect(message.endsWith('…')).toBe(true);
  });
  it('flattens new lines', () => {
    expect(errorMessage(500, parseErrorBody('{"message":"a\\nb"}'))).toBe('HTTP 500 Internal Server Error: a b');
  });
});

describe('classification', () => {
  const cases: [unknown, boolean, boolean][] = [
    [new NetworkError('x', {}), true, false],
    [new TimeoutError(10), true, false],
    ...[408, 425, 429, 500, 502, 503, 504].map((s): [unknown, boolean, boolean] => [new ApiError(s, 'x', null), true, false]),
    ...[400, 409, 413, 415, 422].map((s): [unknown, boolean, boolean] => [new ApiError(s, 'x', null), false, false]),
    ...[401, 403, 404, 405, 301, 307, 308].map((s): [unknown, boolean, boolean] => [new ApiError(s, 'x', null), false, true]),
    [new ConfigError('x'), false, false],
    [new UsageError('x'), false, false],
    [new Error('x'), false, false],
  ];
  it.each(cases)('%s retryable=%s systemic=%s', (error, retryable, systemic) => {
    expect(isRetryable(error)).toBe(retryable);
    expect(isSystemic(error)).toBe(systemic);
  });
});

describe('listingsEndpoint', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com', '/v1/listings'],
    ['https://api.example.com/', 'https://api.example.com', '/v1/listings'],
    ['https://eu.example.com/prefix/', 'https://eu.example.com', '/prefix/v1/listings'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010', '/v1/listings'],
    ['http://localhost:1/x', 'http://localhost:1', '/x/v1/listings'],
    ['http://[::1]:9', 'http://[::1]:9', '/v1/listings'],
  ])('%s', (base, origin, path) => {
    expect(listingsEndpoint(base)).toEqual({ origin, path });
  });
  it('refuses plain http to a host that is not loopback, unless allowed', () => {
    expect(() => listingsEndpoint('http://api.example.com')).toThrow(ConfigError);
    expect(listingsEndpoint('http://api.example.com', { allowInsecureHttp: true }).origin).toBe('http://api.example.com');
  });
  it('rejects what is not an http(s) URL or carries credentials', () => {
    expect(() => listingsEndpoint('api.example.com')).toThrow(ConfigError);
    expect(() => listingsEndpoint('ftp://x')).toThrow(ConfigError);
    expect(() => listingsEndpoint('https://u:p@x')).toThrow(ConfigError);
  });
  it('knows loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '[::1]', 'a.localhost'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.1', 'example.com', '128.0.0.1'].some(isLoopbackHost)).toBe(false);
  });
});
