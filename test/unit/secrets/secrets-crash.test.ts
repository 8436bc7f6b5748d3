import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportError } from '../../../src/cli/report-error.js';
import { MASK, redact, registerEnvironmentSecrets, registerSecret } from '../../../src/secrets.js';

/**
 * The crash report (reportError's internal-error branch) and the masking rules of src/secrets.ts, with canaries.
 * No command has a hook that crashes on purpose (and src has no test hooks), so the internal-error path is proven
 * here: an Error whose message and stack hold the key, a server's escape sequences and a megabyte of text.
 */

const KEY = 'canary-SECRET-crash-7f3a9c';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What reportError writes to stderr, and its exit code. */
function captured(error: unknown): { code: number; stderr: string } {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  const code = reportError(error);
  vi.restoreAllMocks();
  return { code, stderr };
}

describe('the crash report', () => {
  it('masks the key in an internal error message and stack, escapes its controls, and bounds it', () => {
    registerSecret(KEY);
    const error = new TypeError(`cannot read 'x' of undefined (Authorization: Bearer ${KEY}) \u001b]0;pwned\u0007`);
    error.stack = `${error.name}: ${error.message}\n    at send (file:///app/dist/client.js:1:1) ${KEY}\n${'    at deep (x.js:1:1)\n'.repeat(50_000)}`;
    const { code, stderr } = captured(error);
    expect(code).toBe(70);
    expect(stderr).not.toContain(KEY);
    expect(stderr).not.toContain('SECRET-crash');
    expect(stderr).toContain(`Bearer ${MASK}`);
    expect(stderr.includes('\u0007') || stderr.includes('\u001b')).toBe(false);
    expect(stderr).toContain('\\u001b]0;pwned\\u0007');
    expect(stderr).toMatch(/^internal error TypeError: /);
    expect(stderr).toMatch(/This is a bug in listings/);
    expect(stderr.length).toBeLessThan(10_000);
  });

  it('masks a thrown value that is not an Error', () => {
    registerSecret(KEY);
    const { code, stderr } = captured(`raw ${KEY}`);
    expect(code).toBe(70);
    expect(stderr).toContain(`raw ${MASK}`);
  });
});

describe('redact', () => {
  it('masks the signing values of a pre-signed URL, keeping the rest of it', () => {
    const url = 'https://b.s3.amazonaws.com/k.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20250101%2Fus-east-1&X-Amz-Date=20250101T000000Z&X-Amz-Security-Token=FwoG%2Bx&X-Amz-SignedHeaders=host&X-Amz-Signature=abc123';
    expect(redact(`error ${url}: HTTP 403`)).toBe(
      'error https://b.s3.amazonaws.com/k.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=****&X-Amz-Date=20250101T000000Z&X-Amz-Security-Token=****&X-Amz-SignedHeaders=host&X-Amz-Signature=****: HTTP 403',
    );
    expect(redact('https://x.blob.core.windows.net/c/k.csv?sv=2022&sig=abc%2Bdef&se=1')).toBe('https://x.blob.core.windows.net/c/k.csv?sv=2022&sig=****&se=1');
    expect(redact('https://storage.googleapis.com/b/k?x-goog-signature=ff00')).toBe('https://storage.googleapis.com/b/k?x-goog-signature=****');
    expect(redact('a plain message, no = sign: title=long')).toBe('a plain message, no = sign: title=long');
  });

  it('masks a secret as it appears in a URL or a JSON body with escaped slashes', () => {
    const token = 'IQoJ/canary+token=7f3a9c';
    registerSecret(token);
    expect(redact(`header ${token}`)).toBe(`header ${MASK}`);
    expect(redact(`query ${encodeURIComponent(token)}`)).toBe(`query ${MASK}`);
    expect(redact(`json ${token.replaceAll('/', '\\/')}`)).toBe(`json ${MASK}`);
  });

  it('registers the AWS secret key and session token of the environment', () => {
    registerEnvironmentSecrets({ AWS_SECRET_ACCESS_KEY: 'awsCANARYsecret7f3a9c', AWS_SESSION_TOKEN: 'awsCANARYtoken7f3a9c', AWS_ACCESS_KEY_ID: 'AKIAPUBLIC' });
    expect(redact('echo awsCANARYsecret7f3a9c awsCANARYtoken7f3a9c AKIAPUBLIC')).toBe(`echo ${MASK} ${MASK} AKIAPUBLIC`);
  });
});
