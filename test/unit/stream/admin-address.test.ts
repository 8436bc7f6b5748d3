import { describe, expect, it } from 'vitest';
import { parseAdminAddress } from '../../../src/stream/admin-address.js';
import { workerReadiness } from '../../../src/stream/admin-server.js';
import { ConfigError } from '../../../src/errors.js';

describe('parseAdminAddress', () => {
  it.each([
    ['9464', { host: '127.0.0.1', port: 9464 }],
    ['0', { host: '127.0.0.1', port: 0 }],
    ['0.0.0.0:9464', { host: '0.0.0.0', port: 9464 }],
    ['metrics.local:80', { host: 'metrics.local', port: 80 }],
    ['[::]:9464', { host: '::', port: 9464 }],
    [' 9464 ', { host: '127.0.0.1', port: 9464 }],
  ])('%s', (raw, expected) => {
    expect(parseAdminAddress(raw)).toEqual(expected);
  });

  it.each(['', 'x', '65536', ':9464', 'host:', '1e3', '0x10', 'a b:80', '::1:80', 'host:80/path', '9464\n'.repeat(2)])('refuses %j with a ConfigError naming the setting', (raw) => {
    expect(() => parseAdminAddress(raw)).toThrow(ConfigError);
    try {
      parseAdminAddress(raw);
    } catch (error) {
      expect((error as ConfigError).setting).toEqual({ key: 'adminListen', value: raw });
    }
  });
});

describe('workerReadiness', () => {
  it('is ready only in the group with the breaker not open', () => {
    expect(workerReadiness({ joined: true, breaker: 'closed' }).ready).toBe(true);
    expect(workerReadiness({ joined: true, breaker: 'half-open' }).ready).toBe(true);
    expect(workerReadiness({ joined: true, breaker: 'open' })).toEqual({ ready: false, why: 'the service looks down (the circuit is open)' });
    expect(workerReadiness({ joined: false, breaker: 'closed' }).ready).toBe(false);
  });
});
