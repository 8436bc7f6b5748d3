import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, relative } from 'node:path';
import { describe, it, type ExpectStatic } from 'vitest';
import { expectNoCanary as expectNone, publishArgs, REPORTS, workspace as canaryWorkspace, type CanaryScan, type Workspace } from '../helpers/canaries.js';
import { freePort, hasOpenssl, selfSignedCertificate, startScriptedService, startScriptedTlsService, type SeenRequest } from '../helpers/fake-services.js';
import { tempDir } from '../helpers/tmp.js';
import { csvRow, filesBelow, HEADER, writeCatalog } from '../helpers/publish.js';

/**
 * Secrets, proven with canaries: an API key, AWS credentials and the signing values of a pre-signed URL go through
 * every command and path (success, 401, a 500 that echoes the request, a refused connection, config list/get with
 * the key in a profile or named by api_key_env, create, validate, doctor, every report format, the journal, the
 * state, an S3 store and a pre-signed URL that answer 403/404) and appear nowhere: not on stdout, not on stderr, in
 * no file under the working directory or the config directory, except the config file the key was stored in on
 * purpose, which is 0600. (The crash report's masking is proven at unit level: test/unit/secrets/secrets-crash.test.ts.)
 *
 * Each case has its own directory and services, so the file runs them concurrently.
 */

const KEY = 'canary-SECRET-7f3a9c';
const AWS_SECRET = 'awsCANARYsecret/7f3a9c+Zq0wXyZ1234567890abc';
const AWS_TOKEN = 'IQoJCANARYsession/token+7f3a9c==';
const SIGNATURE = 'f00dCANARYsig7f3a9c';
const CREDENTIAL = 'AKIACANARYcred7f3a9c';
const URL_TOKEN = 'FwoCANARYurltoken7f3a9c';
/** Any of these anywhere is a leak: the secrets, their tails (a key cut in half is still half a key), their encodings. */
const CANARIES = [KEY, 'SECRET-7f3a9c', AWS_SECRET, encodeURIComponent(AWS_SECRET), 'CANARYsecret', AWS_TOKEN, encodeURIComponent(AWS_TOKEN), 'CANARYsession', SIGNATURE, CREDENTIAL, URL_TOKEN];

const LISTING = (sku: string) => JSON.stringify({ sku, status: 'ready', title: `Listing ${sku}`, item_specifics: ['Brand'] });
const POLICIES = ['--marketplace', 'EBAY_US', '--merchant-location-key', 'loc-1', '--fulfillment-policy-id', 'fp-1', '--payment-policy-id', 'pp-1', '--return-policy-id', 'rp-1'];

const OPENSSL = hasOpenssl();
if (!OPENSSL) console.warn('\n!!! openssl CLI not found: SKIPPING the https pre-signed URL cases of secrets-canary.test.ts !!!\n');

/** A canary workspace whose environment holds the AWS canaries. */
function workspace(env: Record<string, string> = {}): Workspace {
  return canaryWorkspace({ AWS_SECRET_ACCESS_KEY: AWS_SECRET, AWS_SESSION_TOKEN: AWS_TOKEN, AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEID', AWS_REGION: 'us-east-1', ...env });
}

function expectNoCanary(expect: ExpectStatic, ws: Workspace, options: CanaryScan = {}): void {
  expectNone(expect, ws, CANARIES, options);
}

/** A service that echoes what it was sent (the headers, so the Authorization) in the body of its answer. */
function echo(status: number): (request: SeenRequest, response: ServerResponse, index: number) => void {
  return (request, response, index) => {
    const headers = JSON.stringify(request.headers);
    switch (index % 3) {
      case 0:
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: `rejected: authorization=${String(request.headers.authorization)}`, request: { headers: request.headers } }));
        return;
      case 1:
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end(`${request.method} ${request.url}\n${Object.entries(request.headers).map(([name, value]) => `${name}: ${String(value)}`).join('\n')}`);
        return;
      default:
        // The key with its `-` escaped: not the key's text until the JSON is parsed.
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(`{"error":{"message":"bad ${String(request.headers.authorization).replaceAll('-', '\\u002d')}","echo":${headers}}}`);
    }
  };
}

describe.concurrent('secrets: the API key is never printed or written', () => {
  it('publish to a service that accepts: reports in every format, journal and state hold no key', async ({ expect }) => {
    const service = await startScriptedService((request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(LISTING((JSON.parse(request.body) as { sku: string }).sku));
    });
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: service.url });
    const result = await ws.run(publishArgs(ws, writeCatalog(ws.dir, 5)));
    expect(result.code, result.stderr).toBe(0);
    expect(service.requests[0]?.headers.authorization, 'the key was used').toBe(`Bearer ${KEY}`);
    const files = filesBelow(ws.dir).map((path) => relative(ws.dir, path));
    for (const name of REPORTS) expect(files).toContain(name);
    expect(files.some((name) => /^\.listings\/journal-/.test(name)), files.join(', ')).toBe(true);
    expect(files.some((name) => /^\.listings\/state-/.test(name)), files.join(', ')).toBe(true);
    expectNoCanary(expect, ws);
  });

  it('publish to a service that answers 401 with the key in its body: exit 3, the key masked', async ({ expect }) => {
    const service = await startScriptedService(echo(401));
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: service.url });
    const result = await ws.run(publishArgs(ws, writeCatalog(ws.dir, 20)));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/API key rejected/);
    expectNoCanary(expect, ws);
  });

  it('publish to a service whose 500s echo the request headers (JSON, text, JSON-escaped): every report masked', async ({ expect }) => {
    const service = await startScriptedService(echo(500));
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: service.url });
    const result = await ws.run(publishArgs(ws, writeCatalog(ws.dir, 6), ['--max-attempts', '2']));
    expect(result.code, result.stderr).toBe(1);
    expect(service.count()).toBeGreaterThanOrEqual(6);
    expect(result.stderr).toContain('Bearer ****');
    const csv = readFileSync(join(ws.dir, 'report.csv'), 'utf8');
    expect(csv).toContain('Bearer ****');
    expectNoCanary(expect, ws);
  });

  it('publish to a refused port: exit 3, no key', async ({ expect }) => {
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: `http://127.0.0.1:${await freePort()}` });
    const result = await ws.run(publishArgs(ws, writeCatalog(ws.dir, 5)));
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/connection refused/);
    expectNoCanary(expect, ws);
  });

  it('--verbose, --debug and --log-format json (when publish has them) against 500s that echo the key', async ({ expect }) => {
    const service = await startScriptedService(echo(500));
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: service.url });
    const catalog = writeCatalog(ws.dir, 6);
    const human = await ws.run(publishArgs(ws, catalog, ['--max-attempts', '2', '--verbose', '--debug']), { LISTINGS_DEBUG: '1' });
    if (human.code === 2 && /unknown option/.test(human.stderr)) console.warn('publish has no --verbose or --debug: nothing more to check');
    else {
      expect(human.code, human.stderr).toBe(1);
      const json = await ws.run(publishArgs(ws, catalog, ['--max-attempts', '2', '--verbose', '--debug', '--log-format', 'json']), { LISTINGS_DEBUG: '1' });
      if (!(json.code === 2 && /unknown option|log-format/.test(json.stderr))) expect(json.code, json.stderr).toBe(1);
    }
    expectNoCanary(expect, ws);
  });

  it('the key stored in a profile: config file 0600 (even over a 0644 one), config list/get masked, publish uses it', async ({ expect }) => {
    const service = await startScriptedService((request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(LISTING((JSON.parse(request.body) as { sku: string }).sku));
    });
    const ws = workspace();
    mkdirSync(ws.configDir, { recursive: true });
    const configFile = join(ws.configDir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ profiles: { default: { base_url: service.url } } }));
    chmodSync(configFile, 0o644);
    const set = await ws.run(['config', 'set', 'api_key', KEY]);
    expect(set.code, set.stderr).toBe(0);
    // The key was given on the command line, so that run's output is checked by hand: it only names the file.
    ws.results.pop();
    expect(set.stdout + set.stderr).not.toContain('SECRET-7f3a9c');
    const list = await ws.run(['config', 'list']);
    expect(list.stdout).toMatch(/^api_key\s+can\*\*\*\*\s+\(profile\)$/m);
    const get = await ws.run(['config', 'get', 'api_key']);
    expect(get.stdout.trim()).toBe('can****');
    const result = await ws.run(publishArgs(ws, writeCatalog(ws.dir, 3)));
    expect(result.code, result.stderr).toBe(0);
    expect(service.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expectNoCanary(expect, ws, { keyStored: KEY });
  });

  it('the key named by api_key_env: config list/get show the variable, never its value, and the file holds no key', async ({ expect }) => {
    const ws = workspace({ MY_LISTINGS_KEY: KEY });
    mkdirSync(ws.configDir, { recursive: true });
    writeFileSync(join(ws.configDir, 'config.json'), JSON.stringify({ profiles: { default: { api_key_env: 'MY_LISTINGS_KEY', base_url: 'http://127.0.0.1:1' } } }));
    const list = await ws.run(['config', 'list']);
    expect(list.stdout).toMatch(/^api_key_env\s+MY_LISTINGS_KEY\s+\(profile\)$/m);
    const get = await ws.run(['config', 'get', 'api_key_env']);
    expect(get.stdout.trim()).toBe('MY_LISTINGS_KEY');
    await ws.run(['config', 'get', 'api_key']);
    expectNoCanary(expect, ws);
  });

  it('create: a success, and a 500 echoing the key with --json (which prints the error body)', async ({ expect }) => {
    const ok = await startScriptedService((request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(LISTING((JSON.parse(request.body) as { sku: string }).sku));
    });
    const failing = await startScriptedService((request, response, index) => echo(500)(request, response, index === 0 ? 2 : index));
    const ws = workspace({ LISTINGS_API_KEY: KEY });
    const created = await ws.run(['create', 'SKU-1', '--base-url', ok.url, '--image', 'https://img.example.com/1.jpg', ...POLICIES, '--json']);
    expect(created.code, created.stderr).toBe(0);
    const failed = await ws.run(['create', 'SKU-2', '--base-url', failing.url, '--image', 'https://img.example.com/1.jpg', ...POLICIES, '--json']);
    expect(failed.code, failed.stderr).not.toBe(0);
    expect(failed.stdout + failed.stderr).toContain('****');
    expectNoCanary(expect, ws);
  });

  it('validate and doctor, with the key in the environment', async ({ expect }) => {
    const service = await startScriptedService(echo(401));
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: service.url });
    const catalog = writeCatalog(ws.dir, 3);
    const validated = await ws.run(['validate', catalog, '--json', '--out', join(ws.dir, 'bodies.ndjson')]);
    expect(validated.code, validated.stderr).toBe(0);
    const doctor = await ws.run(['doctor', '--json']);
    expect(doctor.code, doctor.stdout + doctor.stderr).not.toBe(0);
    expectNoCanary(expect, ws);
  });
});

describe.concurrent('secrets: AWS credentials and pre-signed URLs are never shown', () => {
  /** An S3-compatible store that answers every request with an error that echoes the request (the session token). */
  function echoingStore(status: number, code: string) {
    return startScriptedService((request, response) => {
      response.writeHead(status, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>echo ${request.url} ${JSON.stringify(request.headers)} ${AWS_SECRET}</Message><RequestId>1</RequestId></Error>`);
    });
  }

  for (const [status, code] of [
    [403, 'AccessDenied'],
    [418, 'TeapotError'],
  ] as const) {
    it(`an S3 store answering ${status} ${code} and echoing the request: exit 4, no AWS credential shown`, async ({ expect }) => {
      const store = await echoingStore(status, code);
      const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: 'http://127.0.0.1:1' });
      const result = await ws.run(publishArgs(ws, 's3://bucket/catalog.csv', ['--s3-endpoint', store.url]));
      expect(result.code, result.stderr).toBe(4);
      expect(store.requests[0]?.headers['x-amz-security-token'], 'the session token was sent (and echoed)').toBe(AWS_TOKEN);
      expect(result.stderr).toMatch(/s3:\/\/bucket\/catalog\.csv/);
      expectNoCanary(expect, ws);
    });
  }

  const signedQuery = `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${CREDENTIAL}%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=${URL_TOKEN}&X-Amz-Signature=${SIGNATURE}`;

  for (const status of [403, 404]) {
    it.skipIf(!OPENSSL)(`a pre-signed https URL answering ${status}: exit 4, its signing values masked`, async ({ expect }) => {
      const certDir = tempDir('listings-cert-');
      const { key, cert } = selfSignedCertificate(certDir);
      const server = await startScriptedTlsService(key, cert, (request, response) => {
        response.writeHead(status, { 'content-type': 'application/xml' });
        response.end(`<Error><Code>AccessDenied</Code><Message>${request.url}</Message></Error>`);
      });
      const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: 'http://127.0.0.1:1', NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem') });
      const result = await ws.run(publishArgs(ws, `${server.url}/bucket/catalog.csv?${signedQuery}`));
      expect(result.code, result.stderr).toBe(4);
      expect(server.count()).toBe(1);
      expect(result.stderr).toContain(`X-Amz-Signature=****`);
      expect(result.stderr).toContain(`the server answered HTTP ${status}`);
      expectNoCanary(expect, ws);
    });
  }

  it('a pre-signed URL that serves the catalog: the reports name it with its signing values masked', async ({ expect }) => {
    const catalog = `${HEADER}\n${csvRow(1)}\n${csvRow(2)}\n`;
    const source = await startScriptedService((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.end(catalog);
    });
    const service = await startScriptedService((request, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(LISTING((JSON.parse(request.body) as { sku: string }).sku));
    });
    const ws = workspace({ LISTINGS_API_KEY: KEY, LISTINGS_BASE_URL: service.url });
    const result = await ws.run(publishArgs(ws, `${source.url}/bucket/catalog.csv?${signedQuery}`));
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(ws.dir, 'report.csv'), 'utf8')).toContain('X-Amz-Signature=****');
    expectNoCanary(expect, ws);
  });
});
