import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { expectNoCanary, publishArgs, REPORTS, workspace, type Workspace } from '../helpers/canaries.js';
import { freePort, startScriptedService, type ScriptedService } from '../helpers/fake-services.js';
import { startListen } from '../helpers/listen-process.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { csvRow, filesBelow, HEADER } from '../helpers/publish.js';

/**
 * A source URL that carries credentials (issue 21, item 6): userinfo, `?token=`, `access_token`, `api_key`, `sig`,
 * a pre-signed S3 URL's `X-Amz-Credential` and `X-Amz-Signature`, a percent-encoded `%74oken`, a token in the
 * fragment. Each case runs the built binary against a catalog server on loopback that checks it was sent the real
 * URL, then searches every stdout, stderr and file the run left (five reports, --log-format json, validate --json,
 * the journal and state under .listings/) for every canary: none may be there.
 */

const KEY = 'apikeyCANARY-4e1d';
const USER = 'userCANARY4e1d';
const PASS = 'passCANARY4e1d';
const TOKEN = 'tokenCANARY4e1d';
const ACCESS = 'accessCANARY4e1d';
const QUERY_KEY = 'querykeyCANARY4e1d';
const SIG = 'sigCANARY4e1d';
const AMZ_CREDENTIAL = 'AKIACANARYcred4e1d';
const AMZ_SIGNATURE = 'f00dCANARYamz4e1d';
const PERCENT = 'percentCANARY4e1d';
const FRAGMENT = 'fragmentCANARY4e1d';
const REDIRECT = 'redirectCANARY4e1d';
const BASIC = Buffer.from(`${USER}:${PASS}`).toString('base64');
const CANARIES = [KEY, 'CANARY-4e1d', USER, PASS, TOKEN, ACCESS, QUERY_KEY, SIG, AMZ_CREDENTIAL, AMZ_SIGNATURE, PERCENT, FRAGMENT, REDIRECT, BASIC];

/** The query of every source: each secret form at once, with parameters that are no secret between them. */
function query(signature = AMZ_SIGNATURE, token = TOKEN): string {
  return [
    `token=${token}`,
    'page=1',
    `access_token=${ACCESS}`,
    `api_key=${QUERY_KEY}`,
    `sig=${SIG}`,
    'X-Amz-Algorithm=AWS4-HMAC-SHA256',
    `X-Amz-Credential=${AMZ_CREDENTIAL}%2F20250101%2Fus-east-1%2Fs3%2Faws4_request`,
    `X-Amz-Date=${signature === AMZ_SIGNATURE ? '20250101T000000Z' : '20250102T000000Z'}`,
    'X-Amz-Expires=900',
    `X-Amz-Signature=${signature}`,
    `%74oken=${PERCENT}`,
  ].join('&');
}

const ROWS = 4;
const CATALOG = `${[HEADER, ...Array.from({ length: ROWS }, (_, i) => csvRow(i))].join('\n')}\n`;

/** The catalog server: what each path answers. */
function answer(path: string, response: ServerResponse): void {
  switch (path) {
    case '/cat.csv':
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.end(CATALOG);
      return;
    case '/bad.csv':
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.end(`${HEADER}\n${csvRow(0)}\n"SKU-open,never closed\n`);
      return;
    case '/redirect.csv':
      response.writeHead(302, { location: `/500.csv?token=${REDIRECT}` });
      response.end();
      return;
    case '/v1/listings':
      // A service (or a proxy before it) that echoes, bare, what it was told about the run's source.
      response.writeHead(422, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: `cannot use ${USER}:${PASS}, ${TOKEN}, ${ACCESS}, ${QUERY_KEY}, ${SIG}, ${AMZ_SIGNATURE}, ${PERCENT}, ${FRAGMENT}` }));
      return;
    case '/reset.csv':
      response.socket?.destroy();
      return;
    default:
      response.writeHead(/^\/(\d{3})\.csv$/.exec(path)?.[1] === '500' ? 500 : 404, { 'content-type': 'text/plain' });
      response.end('no');
  }
}

let catalogs: ScriptedService;
let sandbox: SandboxProcess;

beforeAll(async () => {
  catalogs = await startScriptedService((request, response) => answer(new URL(request.url, 'http://x').pathname, response));
  sandbox = await startSandboxProcess(['--api-key', KEY]);
});

afterAll(async () => {
  await sandbox.stop();
});

/** The source URL of `path` on the catalog server, with userinfo, every secret query form and a token in the fragment. */
function sourceUrl(path: string, base = catalogs.url, signature?: string, token?: string): string {
  return `${base.replace('://', `://${USER}:${PASS}@`)}${path}?${query(signature, token)}#access_token=${FRAGMENT}`;
}

/** The catalog server was sent the real URL: the token and the rest of the query, and the userinfo as Basic auth. */
function expectRealUrlUsed(expect: ExpectStatic, path: string, token = TOKEN): void {
  const seen = catalogs.requests.filter((request) => request.url.startsWith(`${path}?`) && request.url.includes(`token=${token}&`));
  expect(seen.length, `the catalog server was asked for ${path} with the token`).toBeGreaterThan(0);
  for (const request of seen) {
    expect(request.url).toContain(`X-Amz-Signature=`);
    expect(request.url).toContain(`%74oken=${PERCENT}`);
    expect(request.headers.authorization).toBe(`Basic ${BASIC}`);
  }
}

function canaryWorkspace(): Workspace {
  return workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: sandbox.url });
}

/** The redacted form every output names the source by. */
const SHOWN = /http:\/\/\*\*\*\*@127\.0\.0\.1:\d+\/\w+\.csv\?token=\*\*\*\*&page=1&access_token=\*\*\*\*&api_key=\*\*\*\*&sig=\*\*\*\*&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=\*\*\*\*&X-Amz-Date=\d+T0+Z&X-Amz-Expires=900&X-Amz-Signature=\*\*\*\*&%74oken=\*\*\*\*#access_token=\*\*\*\*/;

interface FailingCase {
  name: string;
  path: string;
  /** The URL when it is not the catalog server's (a refused port). */
  base?: () => Promise<string>;
  stderr: RegExp;
}

const FAILING: FailingCase[] = [
  { name: 'a 404', path: '/404.csv', stderr: /the server answered HTTP 404/ },
  { name: 'a 500', path: '/500.csv', stderr: /the server answered HTTP 500/ },
  { name: 'a connection reset', path: '/reset.csv', stderr: /cannot fetch: / },
  { name: 'a refused connection', path: '/cat.csv', base: async () => `http://127.0.0.1:${await freePort()}`, stderr: /cannot fetch: .*ECONNREFUSED/ },
  { name: 'a redirect to a URL with another token, that answers 500', path: '/redirect.csv', stderr: /HTTP 500 \(at http:\/\/127\.0\.0\.1:\d+\/500\.csv\?token=\*\*\*\*\)/ },
  { name: 'a parse error in the fetched catalog', path: '/bad.csv', stderr: /\.csv\?token=\*\*\*\*.*#access_token=\*\*\*\*:3: .*never closed/ },
];

describe.concurrent('hostile: a source URL that carries credentials is never shown, and still used', () => {
  it('validate (text and --json): every row valid, the source named redacted', async ({ expect }) => {
    const ws = canaryWorkspace();
    const source = sourceUrl('/cat.csv');
    const text = await ws.run(['validate', source]);
    expect(text.code, text.stderr).toBe(0);
    const json = await ws.run(['validate', source, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { valid: number }).valid).toBe(ROWS);
    expectRealUrlUsed(expect, '/cat.csv');
    expectNoCanary(expect, ws, CANARIES);
  });

  it('publish with the five reports, --log-format json, the journal and the state: all name it redacted', async ({ expect }) => {
    const ws = canaryWorkspace();
    const result = await ws.run(publishArgs(ws, sourceUrl('/cat.csv'), ['--log-format', 'json']));
    expect(result.code, result.stderr).toBe(0);
    expectRealUrlUsed(expect, '/cat.csv');
    const files = filesBelow(ws.dir).map((path) => relative(ws.dir, path));
    expect(files.some((name) => /^\.listings\/journal-/.test(name)), files.join(', ')).toBe(true);
    expect(files.some((name) => /^\.listings\/state-/.test(name)), files.join(', ')).toBe(true);
    for (const name of REPORTS) expect(readFileSync(join(ws.dir, name), 'utf8').replaceAll('&amp;', '&'), `${name} names the source, redacted`).toMatch(SHOWN);
    expect(result.stderr, 'the json log names the source, redacted').toMatch(/"event":"run_start".*"sources":\["http:\/\/\*\*\*\*@/);
    expectNoCanary(expect, ws, CANARIES);
  });

  // Before: only the userinfo's Basic form was registered as a secret; a message echoing the password or a
  // token bare showed it in the terminal, the annotations, the summary and every report.
  it('publish to a service whose error message echoes the URL\'s password and tokens bare: none is shown', async ({ expect }) => {
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: catalogs.url, GITHUB_ACTIONS: 'true' });
    const result = await ws.run(publishArgs(ws, sourceUrl('/cat.csv'), ['--log-format', 'json']), { GITHUB_STEP_SUMMARY: join(ws.dir, 'summary.md') });
    expect(result.code, result.stderr).toBe(1);
    expect(readFileSync(join(ws.dir, 'summary.md'), 'utf8')).toMatch(/cannot use/);
    expect(result.stderr).toMatch(/cannot use userCANARY4e1d:\*\*\*\*, \*\*\*\*, \*\*\*\*/);
    expectNoCanary(expect, ws, CANARIES.filter((canary) => canary !== USER));
  });

  it('the same catalog at a URL signed anew (new signature, date, token) resumes the same journal', async ({ expect }) => {
    const ws = canaryWorkspace();
    const first = await ws.run(publishArgs(ws, sourceUrl('/cat.csv')));
    expect(first.code, first.stderr).toBe(0);
    const again = await ws.run(publishArgs(ws, sourceUrl('/cat.csv', catalogs.url, `${AMZ_SIGNATURE}-2`, `${TOKEN}-2`), ['--resume']));
    expect(again.code, again.stderr).toBe(0);
    expectRealUrlUsed(expect, '/cat.csv', `${TOKEN}-2`);
    const summary = JSON.parse(again.stdout) as { published: number; skipped: number };
    expect(summary, 'every row was found in the journal of the first run').toMatchObject({ published: 0, skipped: ROWS });
    expectNoCanary(expect, ws, CANARIES);
  });

  for (const failing of FAILING) {
    it(`validate and publish of ${failing.name}: exit 4, a located error naming the URL redacted`, async ({ expect }) => {
      const ws = canaryWorkspace();
      const source = sourceUrl(failing.path, failing.base === undefined ? catalogs.url : await failing.base());
      const validated = await ws.run(['validate', source]);
      expect(validated.code, validated.stderr).toBe(4);
      expect(validated.stderr).toMatch(failing.stderr);
      const published = await ws.run(publishArgs(ws, source, ['--log-format', 'json']));
      expect(published.code, published.stderr).toBe(4);
      if (failing.base === undefined) expectRealUrlUsed(expect, failing.path);
      expectNoCanary(expect, ws, CANARIES);
    });
  }

  it('a URL mistyped with one slash or backslashes (read as a file name): "no such file", the userinfo masked', async ({ expect }) => {
    const ws = canaryWorkspace();
    for (const source of [`https:/${USER}:${PASS}@127.0.0.1:9/x.csv`, `http:\\\\${USER}:${PASS}@127.0.0.1:9/x.csv`]) {
      const validated = await ws.run(['validate', source]);
      expect(validated.code, validated.stderr).toBe(4);
      expect(validated.stderr).toMatch(/^error https?:[/\\]+\*{4}@127\.0\.0\.1:9\/x\.csv: no such file/m);
      const published = await ws.run(publishArgs(ws, source, ['--log-format', 'json']));
      expect(published.code, published.stderr).toBe(4);
    }
    expectNoCanary(expect, ws, CANARIES);
  });

  it('an s3:// source whose key holds a signed query: the store error names it redacted', async ({ expect }) => {
    const store: S3TestServer = await startS3Server(['bucket']);
    try {
      const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: sandbox.url, AWS_ACCESS_KEY_ID: store.accessKeyId, AWS_SECRET_ACCESS_KEY: store.secretAccessKey, AWS_REGION: 'us-east-1' });
      const result = await ws.run(['validate', `s3://bucket/cat.csv?token=${TOKEN}&X-Amz-Signature=${AMZ_SIGNATURE}`, '--s3-endpoint', store.endpoint]);
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toMatch(/s3:\/\/bucket\/cat\.csv\?token=\*\*\*\*&X-Amz-Signature=\*\*\*\*: no such object/);
      expectNoCanary(expect, ws, CANARIES);
    } finally {
      await store.close();
    }
  });

  it('stream from a kafka:// address with userinfo: refused (exit 2) without showing it', async ({ expect }) => {
    const ws = canaryWorkspace();
    const result = await ws.run(['stream', `kafka://${USER}:${PASS}@127.0.0.1:9092/products`, '--group', 'g']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/holds no credentials.*LISTINGS_KAFKA_USERNAME/);
    expectNoCanary(expect, ws, CANARIES);
  });

  it('listen --record: a callback whose URL holds a token and whose headers hold credentials is recorded without them', async ({ expect }) => {
    const ws = canaryWorkspace();
    const recording = join(ws.dir, 'hooks.ndjson');
    const listen = await startListen(['--record', recording, '--json']);
    const sent = await fetch(`${listen.url}hooks?token=${TOKEN}&sig=${SIG}&id=7`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, cookie: `session=${ACCESS}`, 'x-auth-token': QUERY_KEY },
      body: JSON.stringify({ id: 'evt_1', type: 'listing.created' }),
    });
    expect(sent.status).toBe(200);
    const stopped = await listen.stop();
    ws.results.push({ code: stopped.code, signal: null, stdout: stopped.stdout, stderr: stopped.stderr });
    const record = JSON.parse(readFileSync(recording, 'utf8').trim()) as { path: string; headers: Record<string, string> };
    expect(record.path).toBe('/hooks?token=****&sig=****&id=7');
    expect(Object.keys(record.headers)).not.toContain('cookie');
    expectNoCanary(expect, ws, CANARIES);
  });
});
