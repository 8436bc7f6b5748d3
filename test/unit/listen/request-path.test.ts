import { describe, expect, it } from 'vitest';
import { requestPath } from '../../../src/request-path.js';

describe('requestPath', () => {
  it('is the path of a target in origin or absolute form, without query or fragment', () => {
    expect(requestPath('/hooks?token=x')).toBe('/hooks');
    expect(requestPath('/hooks#f')).toBe('/hooks');
    expect(requestPath('http://127.0.0.1:8787/hooks/a?x=1')).toBe('/hooks/a');
    expect(requestPath('HTTPS://example.com/healthz')).toBe('/healthz');
    expect(requestPath('http://example.com')).toBe('/');
    expect(requestPath('http://example.com?a=/b')).toBe('/');
    expect(requestPath('*')).toBe('*');
    expect(requestPath('example.com:443')).toBe('example.com:443');
  });
});
