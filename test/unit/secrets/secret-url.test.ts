import { describe, expect, it } from 'vitest';
import { isSecretParam, redactRequestTarget, redactSourceName, redactUrlsIn, sourceIdentity, urlSecrets } from '../../../src/secret-url.js';
import { redact } from '../../../src/secrets.js';

const SIGNED = 'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=FwoG%2Bx&X-Amz-Signature=abc123';
const SIGNED_SHOWN = 'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=****&X-Amz-Date=20250101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=****&X-Amz-Signature=****';

describe('redactSourceName', () => {
  it.each([
    ['a file path', 'catalog.csv', 'catalog.csv'],
    ['a file path that looks like a query (a file may be named so)', './cat.csv?token=abc', './cat.csv?token=abc'],
    ['stdin', '-', '-'],
    ['a URL without credentials', 'https://example.com/c.csv?page=2#top', 'https://example.com/c.csv?page=2#top'],
    ['user and password', 'https://user:pass@example.com/c.csv', 'https://****@example.com/c.csv'],
    ['a user alone (a token as the user, as Git hosts take one)', 'https://ghp_abc123@example.com/c.csv', 'https://****@example.com/c.csv'],
    ['an `@` in the password, taken as the URL parser takes it', 'https://u:p@ss@example.com/c.csv', 'https://****@example.com/c.csv'],
    ['an `@` in the path is no userinfo', 'https://example.com/users/@me/c.csv', 'https://example.com/users/@me/c.csv'],
    ['an `@` in the query is no userinfo', 'https://example.com/c.csv?email=a@b.example', 'https://example.com/c.csv?email=a@b.example'],
    ['a URL that does not parse: from `//` to the last `@`', 'https://user:pa/ss@exa mple.com/c.csv', 'https://****@exa mple.com/c.csv'],
    ['a password with a `#`, which does not parse', 'https://user:pa#ss@example.com/c.csv', 'https://****@example.com/c.csv'],
    ['token', 'https://h/c.csv?token=abc&page=2', 'https://h/c.csv?token=****&page=2'],
    ['access_token, refresh_token, id_token', 'https://h/c?access_token=a&refresh_token=b&id_token=c', 'https://h/c?access_token=****&refresh_token=****&id_token=****'],
    ['key, api_key, apikey, api-key', 'https://h/c?key=a&api_key=b&apikey=c&api-key=d', 'https://h/c?key=****&api_key=****&apikey=****&api-key=****'],
    ['secret, client_secret, password, pass, pwd', 'https://h/c?secret=a&client_secret=b&password=c&pass=d&pwd=e', 'https://h/c?secret=****&client_secret=****&password=****&pass=****&pwd=****'],
    ['auth, authorization, jwt, session, sessionid, code', 'https://h/c?auth=a&authorization=b&jwt=c&session=d&sessionid=e&code=f', 'https://h/c?auth=****&authorization=****&jwt=****&session=****&sessionid=****&code=****'],
    ['names in any case', 'https://h/c?TOKEN=a&Api_Key=b&AccessToken=c', 'https://h/c?TOKEN=****&Api_Key=****&AccessToken=****'],
    ['a percent-encoded name', 'https://h/c?%74oken=abc&%61pi%5Fkey=def', 'https://h/c?%74oken=****&%61pi%5Fkey=****'],
    ['a malformed escape in a name', 'https://h/c?%zztoken=abc', 'https://h/c?%zztoken=****'],
    ['a repeated parameter', 'https://h/c?token=a&token=b&x=1&token=c', 'https://h/c?token=****&token=****&x=1&token=****'],
    ['`;` as a separator', 'https://h/c?a=1;token=abc', 'https://h/c?a=1;token=****'],
    ['an empty value stays empty', 'https://h/c?token=&a=1', 'https://h/c?token=&a=1'],
    ['a name without a value', 'https://h/c?token&a=1', 'https://h/c?token&a=1'],
    ['a token in the fragment (OAuth implicit grant)', 'https://h/c#access_token=abc&state=1', 'https://h/c#access_token=****&state=1'],
    ['a fragment without parameters', 'https://h/c?token=a#section-2', 'https://h/c?token=****#section-2'],
    ['a pre-signed S3 URL: the signing secrets, its date and expiry kept', `https://b.s3.amazonaws.com/k.csv?${SIGNED}`, `https://b.s3.amazonaws.com/k.csv?${SIGNED_SHOWN}`],
    ['a pre-signed GCS URL', 'https://storage.googleapis.com/b/k?X-Goog-Credential=a&X-Goog-Date=20250101T000000Z&X-Goog-Signature=ff00', 'https://storage.googleapis.com/b/k?X-Goog-Credential=****&X-Goog-Date=20250101T000000Z&X-Goog-Signature=****'],
    ['an Azure SAS URL: sig', 'https://x.blob.core.windows.net/c/k.csv?sv=2022-11-02&sp=r&se=2025-01-01&sig=abc%2Bdef', 'https://x.blob.core.windows.net/c/k.csv?sv=2022-11-02&sp=r&se=2025-01-01&sig=****'],
    ['an s3:// URL with a query and userinfo', 's3://AKIA:secret@bucket/k.csv?X-Amz-Security-Token=abc', 's3://****@bucket/k.csv?X-Amz-Security-Token=****'],
    ['a kafka:// address with userinfo (does not parse: conservative)', 'kafka://user:pw@b1:9092,b2:9092/topic', 'kafka://****@b1:9092,b2:9092/topic'],
    ['the scheme in any case', 'HTTPS://u:p@H/c?Token=x', 'HTTPS://****@H/c?Token=****'],
    ['a backslash ends an http authority', 'https://h\\u:p@x/c', 'https://h\\u:p@x/c'],
    ['parameters that are no secret are kept', 'https://h/c.csv?page=2&sort=asc&format=csv', 'https://h/c.csv?page=2&sort=asc&format=csv'],
  ])('%s', (_name, source, shown) => {
    expect(redactSourceName(source)).toBe(shown);
    // Shown again, it stays as it is: text that is redacted twice (a name in a message) loses nothing more.
    expect(redactSourceName(shown)).toBe(shown);
  });

  it('names the same secret-looking parameters whatever their spelling', () => {
    for (const name of ['token', 'X-Amz-Signature', 'x-amz-credential', 'X-Amz-Security-Token', 'x-goog-signature', 'sig', 'signature', 'api_key', 'subscription-key', 'hub.verify_token', 'oauth_token']) {
      expect(isSecretParam(name), name).toBe(true);
    }
    for (const name of ['page', 'sort', 'format', 'sv', 'sp', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'limit', 'id']) {
      expect(isSecretParam(name), name).toBe(false);
    }
  });
});

describe('sourceIdentity', () => {
  it('is the same for a URL signed anew (new signature, date, expiry, token)', () => {
    const first = `https://u:p1@b.s3.amazonaws.com/k.csv?${SIGNED}&token=a`;
    const again = `https://u:p2@b.s3.amazonaws.com/k.csv?${SIGNED.replace('abc123', 'fff999').replaceAll('20250101', '20250102').replace('900', '3600')}&token=b`;
    expect(sourceIdentity(again)).toBe(sourceIdentity(first));
    const sas = (se: string, sig: string) => `https://x.blob.core.windows.net/c/k.csv?sv=2022-11-02&st=${se}&se=${se}&sp=r&sig=${sig}`;
    expect(sourceIdentity(sas('2025-01-02', 'b'))).toBe(sourceIdentity(sas('2025-01-01', 'a')));
  });

  it('tells apart what names another catalog: host, path, other parameters', () => {
    const base = sourceIdentity('https://h/c.csv?token=a&page=1');
    expect(sourceIdentity('https://h/c.csv?token=a&page=2')).not.toBe(base);
    expect(sourceIdentity('https://h/d.csv?token=a&page=1')).not.toBe(base);
    expect(sourceIdentity('https://g/c.csv?token=a&page=1')).not.toBe(base);
    expect(sourceIdentity('catalog.csv')).toBe('catalog.csv');
  });
});

describe('redactRequestTarget', () => {
  it.each([
    ['/hooks?token=abc&x=1', '/hooks?token=****&x=1'],
    ['/hooks', '/hooks'],
    ['/hooks?sig=abc#access_token=def', '/hooks?sig=****#access_token=****'],
  ])('%s', (target, shown) => {
    expect(redactRequestTarget(target)).toBe(shown);
  });
});

describe('redactUrlsIn and redact: URLs in free text', () => {
  it.each([
    ['a location after the URL keeps its line', 'https://u:p@h/c.csv?token=abc: cannot fetch', 'https://****@h/c.csv?token=****: cannot fetch'],
    ['an already shown name keeps its line number', 'https://****@h/c.csv?token=****:12: bad value', 'https://****@h/c.csv?token=****:12: bad value'],
    ['in brackets', 'answered 500 (at https://h/x?token=abc)', 'answered 500 (at https://h/x?token=****)'],
    ['in a JSON string', '{"source":"https://u:p@h/c?api_key=abc"}', '{"source":"https://****@h/c?api_key=****"}'],
    ['two URLs', 'from https://h/a?sig=1 to https://h/b?sig=2.', 'from https://h/a?sig=**** to https://h/b?sig=****.'],
    ['a query without its URL (a request line)', 'GET /v1/x?access_token=abc HTTP/1.1', 'GET /v1/x?access_token=**** HTTP/1.1'],
    ['a signing parameter anywhere (a store echoing its canonical request)', 'X-Amz-Credential=AKIA%2Fx\nX-Amz-Signature=abc', 'X-Amz-Credential=****\nX-Amz-Signature=****'],
    ['a plain sentence with `=` is left alone', 'expected price=12.5, got key = none', 'expected price=12.5, got key = none'],
    ['text naming a key field is left alone', 'rejected: authorization=Bearer ****', 'rejected: authorization=Bearer ****'],
    // Read as file names (no `://`), but URLs to the URL parser and to a reader: their userinfo is masked all the same.
    ['a URL mistyped with one slash', 'https:/alice:PASSw0rd@h:42833/x.csv: no such file', 'https:/****@h:42833/x.csv: no such file'],
    ['a URL mistyped with backslashes', 'error http:\\\\alice:PASSw0rd@h/x.csv', 'error http:\\\\****@h/x.csv'],
    ['a password holding `@`, mistyped', 'HTTP:/a:p@ss@h/x', 'HTTP:/****@h/x'],
    ['a path that only looks like one is left alone', 'see notes:/a@b.csv', 'see notes:/a@b.csv'],
  ])('%s', (_name, text, shown) => {
    expect(redactUrlsIn(text)).toBe(shown);
    expect(redact(text)).toBe(shown);
  });
});

describe('urlSecrets: what a URL carries bare, to register as secrets', () => {
  it('the password and every secret parameter value, as written and decoded; no name, no other value', () => {
    expect(urlSecrets('https://user:p%40ss@host/c.csv?page=2&token=a%2Bb+c&X-Amz-Signature=f00d;sig=s1gn#access_token=frag')).toEqual([
      'p%40ss', 'p@ss', 'a%2Bb+c', 'a+b c', 'f00d', 'f00d', 's1gn', 's1gn', 'frag', 'frag',
    ]);
    expect(urlSecrets('catalog.csv')).toEqual([]);
    expect(urlSecrets('https://host/c.csv?page=2')).toEqual([]);
  });
});
