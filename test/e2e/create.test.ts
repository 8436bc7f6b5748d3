import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printable } from '../../src/printable.js';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox-process.js';
import { tempDir } from '../helpers/tmp.js';

const KEY = 'sk_test_e2e_create_0123456789';
const POLICIES = ['--merchant-location-key', 'loc-1', '--fulfillment-policy-id', 'f-1', '--payment-policy-id', 'p-1', '--return-policy-id', 'r-1'];

let sandbox: SandboxProcess;
let saved: SandboxProcess;

beforeAll(async () => {
  [sandbox, saved] = await Promise.all([
    startSandboxProcess(['--api-key', KEY]),
    startSandboxProcess(['--api-key', KEY, '--saved-defaults']),
  ]);
});
afterAll(async () => {
  await Promise.all([sandbox.stop(), saved.stop()]);
});

/** A one-trick server on loopback: records what it received, answers one fixed status and body. */
async function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
  const seen: IncomingHttpHeaders[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    paths.push(req.url ?? '');
    req.resume().on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, paths, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function env(extra: Record<string, string> = {}) {
  return { LISTINGS_API_KEY: KEY, ...extra };
}

describe('listings create', () => {
  it('creates a flat listing and shows status, title and item specifics', async () => {
    const r = await runCli(['create', 'SKU-1', '--base-url', sandbox.url, '--marketplace', 'EBAY_US', '--image', 'https://img.example.com/1.jpg', '--condition', 'NEW', ...POLICIES], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/SKU-1\s+ready/);
    expect(r.stdout).toMatch(/title\s+\S/);
    expect(r.stdout).toMatch(/item specifics\s+\S/);
  });

  // Before: `invalid images_source[1]: ...`, the request's field, and the hint for a relative image only when it
  // started with `/`, though any image without a scheme is put under --image-base-url.
  it('names a bad image by the flag it was given with, with the --image-base-url hint wherever a base would make it absolute', async () => {
    const before = await sandbox.stats();
    const images = ['--image', 'https://img.example.com/1.jpg', '--image', 'a.jpg', '--image', 'my pic.jpg', '--image', '/m/b.jpg', '--image', 'ftp://x/c.jpg'];
    const r = await runCli(['create', 'SKU-1', '--base-url', sandbox.url, '--marketplace', 'EBAY_US', ...images, '--condition', 'NEW', ...POLICIES], { env: env() });
    expect(r.code).toBe(1);
    const hint = '(a path: give the address it is under with --image-base-url or in the profile)';
    expect(r.stderr.trim().split('\n')).toEqual([
      `invalid --image a.jpg: not an absolute http(s) URL ${hint}`,
      `invalid --image 'my pic.jpg': not an absolute http(s) URL ${hint}`,
      `invalid --image /m/b.jpg: not an absolute http(s) URL ${hint}`,
      'invalid --image ftp://x/c.jpg: not an absolute http(s) URL',
      'nothing was sent',
    ]);
    expect((await sandbox.stats()).requests).toBe(before.requests);
    // With the base, the paths are made absolute; what has another scheme is still refused, without the hint.
    const based = await runCli(['create', 'SKU-1', '--base-url', sandbox.url, '--marketplace', 'EBAY_US', '--image', 'a.jpg', '--image', 'ftp://x/c.jpg', '--image-base-url', 'https://shop.example.com/media', '--condition', 'NEW', ...POLICIES], { env: env() });
    expect(based.stderr.trim().split('\n')).toEqual(['invalid --image ftp://x/c.jpg: not an absolute http(s) URL', 'nothing was sent']);
  });

  it('creates a wrapped listing and prints the response object with --json, keeping extra fields', async () => {
    const r = await runCli(['create', 'SKU-2', '--shape', 'wrapped', '--marketplace', 'EBAY_US', '--title', 'Blue mug', '--json'], {
      env: env({ LISTINGS_BASE_URL: sandbox.url }),
    });
    expect(r.code).toBe(0);
    const listing = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(listing).toMatchObject({ sku: 'SKU-2', status: 'ready', title: 'Blue mug' });
    expect(Array.isArray(listing.item_specifics)).toBe(true);
    expect(Object.keys(listing).length).toBeGreaterThan(4);
  });

  // Before: the flat body has no title and the wrapped one no images, location or policies, and each was left out in
  // silence: the listing was created (exit 0) with the service's own title, or without the images and the condition.
  it.each([
    [['--marketplace', 'EBAY_US', '--title', 'Blue mug', ...POLICIES], /the flat request has no place for --title: the listing would be created without it[\s\S]*--shape wrapped/],
    [['--shape', 'wrapped', '--marketplace', 'ebay', '--title', 'T', '--image', 'https://img.example.com/1.jpg', '--condition', 'NEW'], /the wrapped request has no place for --image, --condition: the listing would be created without them[\s\S]*--shape flat/],
  ])('refuses a field its shape would leave out (%j), sending nothing', async (args, message) => {
    const server = await answering(201, { sku: 'SKU-U', status: 'ready', title: 't', item_specifics: [] });
    try {
      const r = await runCli(['create', 'SKU-U', '--base-url', server.url, ...args], { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(server.seen).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('takes defaults from the profile', async () => {
    const configDir = tempDir();
    const configEnv = env({ LISTINGS_CONFIG_DIR: configDir });
    for (const [key, value] of [['base_url', sandbox.url], ['marketplace', 'EBAY_DE'], ['merchant_location_key', 'loc-1'], ['fulfillment_policy_id', 'f'], ['payment_policy_id', 'p'], ['return_policy_id', 'r']]) {
      expect((await runCli(['config', 'set', key!, value!], { env: configEnv })).code).toBe(0);
    }
    const r = await runCli(['create', 'SKU-3', '--json'], { env: configEnv });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sku: 'SKU-3', status: 'ready' });
  });

  it('a wrong key: exit 3, a clear message, the key in no output', async () => {
    const wrong = 'sk_wrong_key_that_must_not_leak_42';
    const r = await runCli(['create', 'SKU-4', '--base-url', sandbox.url, '--marketplace', 'EBAY_US', ...POLICIES], { env: { LISTINGS_API_KEY: wrong } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/401/);
    expect(r.stderr).toMatch(/API key was rejected/);
    expect(r.stdout + r.stderr).not.toContain(wrong);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  // Before: exit 1 with one `invalid` line per field, as for a catalog's bad row, where the README's exit codes (and
  // publish, for a catalog that no default or row gives them) make missing settings exit 2.
  it('missing policy ids without saved defaults: exit 2, each setting with its flag, nothing sent', async () => {
    const before = await sandbox.stats();
    const r = await runCli(['create', 'SKU-5', '--base-url', sandbox.url, '--marketplace', 'EBAY_US'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error merchant_location_key, fulfillment_policy_id, payment_policy_id, return_policy_id are not set; give each with:$/m);
    expect(r.stderr).toContain('  return_policy_id: --return-policy-id <id>, LISTINGS_RETURN_POLICY_ID=<id>, `listings config set return_policy_id <id>`\n');
    expect(r.stderr).not.toMatch(/column in the catalog/);
    expect((await sandbox.stats()).requests).toBe(before.requests);
  });

  it('with no profile and no LISTINGS_* variable at all: exit 2 naming the marketplace and the policies', async () => {
    const r = await runCli(['create', 'SKU-1', '--image', 'https://example.com/a.jpg', '--condition', 'NEW']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error marketplace, merchant_location_key, fulfillment_policy_id, payment_policy_id, return_policy_id are not set/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a --saved-defaults sandbox accepts them missing when the profile says saved_defaults', async () => {
    const r = await runCli(['create', 'SKU-6', '--base-url', saved.url, '--marketplace', 'EBAY_US', '--saved-defaults', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sku: 'SKU-6', status: 'ready' });
  });

  it('an item the service rejects (4xx) exits 1 with the message of its error body', async () => {
    const server = await answering(409, { error: { code: 'conflict', message: 'SKU-7 is locked by another job' } });
    const r = await runCli(['create', 'SKU-7', '--base-url', server.url, '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
    await server.close();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rejected SKU-7: HTTP 409 Conflict: SKU-7 is locked by another job/);
    expect(server.seen[0]).toMatchObject({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
    expect(server.seen[0]!['user-agent']).toMatch(/^listings-cli\/\d+\.\d+\.\d+/);
    expect(server.seen[0]!['idempotency-key']).toMatch(/\S{16,}/);
  });

  it('a redirect is not followed, so the key goes nowhere else (exit 3)', async () => {
    const server = await answering(307, {}, { location: 'https://elsewhere.example.com/v1/listings' });
    const r = await runCli(['create', 'SKU-8', '--base-url', server.url, '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
    await server.close();
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/redirected to https:\/\/elsewhere\.example\.com\/v1\/listings; not followed/);
    expect(server.seen).toHaveLength(1);
  });

  it('a 2xx answer that breaks the contract is reported, not trusted', async () => {
    const server = await answering(200, { sku: 'SKU-9', status: 'ready' });
    const r = await runCli(['create', 'SKU-9', '--base-url', `${server.url}/prefix/`, '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
    await server.close();
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/does not match the listing contract \(title, item_specifics\)/);
    expect(server.paths).toEqual(['/prefix/v1/listings']);
  });

  it('a 2xx answer for another SKU is reported, not shown as this one made (exit 3)', async () => {
    const server = await answering(201, { sku: 'SOMEONE-ELSE', status: 'ready', title: 't', item_specifics: [] });
    const r = await runCli(['create', 'SKU-1', '--base-url', server.url, '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
    await server.close();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('HTTP 201: the answer is for SKU "SOMEONE-ELSE", not "SKU-1": the listing was not made as sent');
    expect(r.stdout).not.toContain('SOMEONE-ELSE');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unreachable base URL: a clear network error, exit 3, no stack trace', async () => {
    const r = await runCli(['create', 'SKU-11', '--base-url', 'http://127.0.0.1:9', '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9: connection refused/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  // Before: --json printed nothing on stdout unless the service answered a listing or refused it with a 4xx: a 500,
  // an unreachable service, missing settings or an invalid field left a CI job reading stdout with no document.
  describe('--json: one document on stdout whatever happens, with the exit code', () => {
    async function createJson(args: string[], extra: Record<string, string> = {}) {
      const r = await runCli(['create', 'SKU-J', '--json', ...args], { env: env(extra) });
      expect(r.stdout.trim().split('\n'), r.stdout).toHaveLength(1);
      return { code: r.code, stderr: r.stderr, doc: JSON.parse(r.stdout) as { error: Record<string, unknown>; exit_code: number } };
    }

    it('a 500: the service failed, its status, message and body', async () => {
      const server = await answering(500, { message: 'database down' });
      try {
        const { code, stderr, doc } = await createJson(['--base-url', server.url, '--marketplace', 'EBAY_US', ...POLICIES]);
        expect(code).toBe(3);
        expect(doc).toEqual({ error: { kind: 'service', status: 500, message: 'HTTP 500 Internal Server Error: database down', hint: null, body: { message: 'database down' } }, exit_code: 3 });
        expect(stderr).toMatch(/^error HTTP 500 Internal Server Error: database down$/m);
      } finally {
        await server.close();
      }
    });

    it('an unreachable base URL: no status, the hint', async () => {
      const { code, doc } = await createJson(['--base-url', 'http://127.0.0.1:9', '--marketplace', 'EBAY_US', ...POLICIES]);
      expect(code).toBe(3);
      expect(doc.error).toMatchObject({ kind: 'service', status: null, message: expect.stringMatching(/^cannot reach http:\/\/127\.0\.0\.1:9: connection refused/) as unknown, hint: expect.stringMatching(/base_url/) as unknown });
      expect(doc.exit_code).toBe(3);
    });

    it('settings missing: a usage failure, exit 2', async () => {
      const { code, doc } = await createJson(['--base-url', sandbox.url]);
      expect(code).toBe(2);
      expect(doc.error).toMatchObject({ kind: 'usage', status: null, message: expect.stringMatching(/^marketplace, merchant_location_key, .* are not set/) as unknown });
      expect(doc.exit_code).toBe(2);
    });

    it('an invalid field: the issues, nothing sent, exit 1', async () => {
      const { code, doc } = await createJson(['--base-url', sandbox.url, '--marketplace', 'EBAY_US', '--image', 'images/a.jpg', ...POLICIES]);
      expect(code).toBe(1);
      expect(doc).toEqual({ error: { kind: 'invalid', status: null, message: 'the listing is invalid: nothing was sent', hint: null, issues: [{ path: 'images_source[0]', message: 'not an absolute http(s) URL: "images/a.jpg" (a path: give the address it is under with --image-base-url or in the profile)' }] }, exit_code: 1 });
    });

    // Before: the body was printed as the service sent it, so JSON.parse gave a live ESC (which `jq -r` hands to the
    // terminal) where the message beside it, and every report, give the text printable() makes.
    it("a rejection body's texts are escaped once, as printable() writes them, keys too", async () => {
      const text = 'say "hi" C:\\dir \u001b[31mred\u0007 \u009b\u202e\nnext';
      const server = await answering(400, { error: { message: text, 'k\u001bey': [text] } });
      try {
        const r = await runCli(['create', 'SKU-J', '--json', '--base-url', server.url, '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
        expect(r.code).toBe(1);
        // eslint-disable-next-line no-control-regex -- control characters are what this looks for
        expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
        const shown = printable(text, { lines: false });
        expect(shown).toBe('say "hi" C:\\dir \\u001b[31mred\\u0007 \\u009b\\u202e\\u000anext');
        const doc = JSON.parse(r.stdout) as { error: { message: string; body: unknown } };
        expect(doc.error.body).toEqual({ error: { message: shown, 'k\\u001bey': [shown] } });
        // The message is one line (its line break a space), as on the terminal.
        expect(doc.error.message).toBe(`HTTP 400 Bad Request: ${printable(text.replace('\n', ' '), { lines: false })}`);
      } finally {
        await server.close();
      }
    });

    it('a listing the service rejects: its status, message and body, exit 1', async () => {
      const server = await answering(409, { error: { code: 'conflict', message: 'SKU-J is locked' } });
      try {
        const { code, doc } = await createJson(['--base-url', server.url, '--marketplace', 'EBAY_US', ...POLICIES]);
        expect(code).toBe(1);
        expect(doc).toEqual({ error: { kind: 'rejected', status: 409, message: 'HTTP 409 Conflict: SKU-J is locked', hint: null, body: { error: { code: 'conflict', message: 'SKU-J is locked' } } }, exit_code: 1 });
      } finally {
        await server.close();
      }
    });
  });

  // Before: commander refused the command line (and the flags' own checks refused a value) before the action ran, so
  // even with --json stdout was empty and only the text on stderr said why (exit 2). --json is looked for in argv's
  // own words, since commander often stops before it assigns it (an unknown option makes it skip every word after).
  describe('--json: a command line that cannot be read is a usage document too (exit 2), stderr as before', () => {
    const COMMANDER_HINT = 'run with --help for usage';
    it.each([
      ['a missing SKU', ['create', '--json', '--image', 'https://img.example.com/1.jpg', '--condition', 'NEW'], "missing required argument 'sku'", COMMANDER_HINT, "error: missing required argument 'sku'\n(run with --help for usage)\n"],
      ['an unknown option, --json before it', ['create', 'SKU-J', '--json', '--bogus', '--condition', 'NEW'], "unknown option '--bogus'", COMMANDER_HINT, "error: unknown option '--bogus'\n(run with --help for usage)\n"],
      ['an unknown option, --json after it', ['create', 'SKU-J', '--bogus', '--json'], "unknown option '--bogus'", COMMANDER_HINT, "error: unknown option '--bogus'\n(run with --help for usage)\n"],
      ['an option missing its value', ['create', 'SKU-J', '--condition', 'NEW', '--json', '--image'], "option '--image <url>' argument missing", COMMANDER_HINT, "error: option '--image <url>' argument missing\n(run with --help for usage)\n"],
      ['an operand too many', ['create', 'SKU-J', 'SKU-K', '--json'], "too many arguments for 'create'. Expected 1 argument but got 2.", COMMANDER_HINT, "error: too many arguments for 'create'. Expected 1 argument but got 2.\n(run with --help for usage)\n"],
      ['a single-value option given twice', ['create', 'SKU-J', '--condition', 'NEW', '--condition', 'USED', '--json'], '--condition is given twice, with different values: give it once', null, 'error --condition is given twice, with different values: give it once\n'],
      ['a bad duration', ['create', 'SKU-J', '--timeout', 'soon', '--json'], "--timeout: 'soon' is not a duration: use 500ms, 30s or 2m", null, "error --timeout: 'soon' is not a duration: use 500ms, 30s or 2m\n"],
      ['a switch given both ways', ['create', 'SKU-J', '--json', '--saved-defaults', '--no-saved-defaults'], '--saved-defaults and --no-saved-defaults are both given, and they contradict each other: give one of them', null, 'error --saved-defaults and --no-saved-defaults are both given, and they contradict each other: give one of them\n'],
    ])('%s', async (_, args, message, hint, stderr) => {
      const r = await runCli(args, { env: env() });
      expect(r.code).toBe(2);
      expect(r.stdout.endsWith('\n') && r.stdout.trim().split('\n'), r.stdout).toHaveLength(1);
      expect(JSON.parse(r.stdout)).toEqual({ error: { kind: 'usage', status: null, message, hint }, exit_code: 2 });
      expect(r.stderr).toBe(stderr);
    });

    it('a hostile option is escaped in the document as on stderr', async () => {
      const r = await runCli(['create', 'SKU-J', '--json', '--bo\u001b]0;owned\u0007\u202egus'], { env: env() });
      expect(r.code).toBe(2);
      // eslint-disable-next-line no-control-regex -- control characters are what this looks for
      expect(r.stdout + r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect((JSON.parse(r.stdout) as { error: { message: string } }).error.message).toBe("unknown option '--bo\\u001b]0;owned\\u0007\\u202egus'");
    });

    it('an API key given as an option is not repeated, and the hint says where it goes', async () => {
      const secret = 'sk_live_argv_secret_must_not_leak_77';
      const r = await runCli(['create', 'SKU-J', `--api-key=${secret}`, '--json'], { env: env() });
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(JSON.parse(r.stdout)).toEqual({ error: { kind: 'usage', status: null, message: "unknown option '--api-key'", hint: expect.stringMatching(/^an API key is never given on the command line/) as unknown }, exit_code: 2 });
    });

    // --json counts where commander would read it as the switch: not as another option's value, not after `--`, not
    // as `--json=...` (which commander refuses as an unknown option).
    it.each([
      ['no --json', ['create', '--bogus']],
      ['--json after --', ['create', 'SKU-J', '--', '--json']],
      ['--json=yes', ['create', 'SKU-J', '--json=yes']],
      ["--json as --title's value", ['create', '--title', '--json']],
    ])('%s: stdout stays empty, exit 2', async (_, args) => {
      const r = await runCli(args, { env: env() });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error/);
    });

    it('--help with --json is the help, exit 0, no document', async () => {
      const r = await runCli(['create', 'SKU-J', '--json', '--help'], { env: env() });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: listings create/);
      expect(r.stdout).not.toContain('"exit_code"');
    });
  });

  it('refuses a plain http base URL that is not loopback (exit 2)', async () => {
    const r = await runCli(['create', 'SKU-9', '--base-url', 'http://api.example.com', '--marketplace', 'EBAY_US', ...POLICIES], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to send the API key over plain http/);
  });

  it('without a key: exit 2 naming the variable', async () => {
    const r = await runCli(['create', 'SKU-10', '--base-url', sandbox.url, '--marketplace', 'EBAY_US', ...POLICIES]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/LISTINGS_API_KEY is not set/);
  });
});

describe('listings config', () => {
  it('set/get/list/use/profiles/unset round-trip in a temp config dir', async () => {
    const dir = tempDir();
    const e = { LISTINGS_CONFIG_DIR: dir };
    expect((await runCli(['config', 'set', 'marketplace', 'EBAY_US'], { env: e })).code).toBe(0);
    expect((await runCli(['config', 'get', 'marketplace'], { env: e })).stdout.trim()).toBe('EBAY_US');
    expect((await runCli(['config', 'get', 'marketplace'], { env: { ...e, LISTINGS_MARKETPLACE: 'EBAY_GB' } })).stdout.trim()).toBe('EBAY_GB');

    expect((await runCli(['config', 'set', '--profile', 'eu', 'marketplace', 'EBAY_DE'], { env: e })).code).toBe(0);
    expect((await runCli(['config', 'use', 'eu'], { env: e })).code).toBe(0);
    expect((await runCli(['config', 'get', 'marketplace'], { env: e })).stdout.trim()).toBe('EBAY_DE');
    expect((await runCli(['config', 'profiles'], { env: e })).stdout).toBe('  default\n* eu\n');

    const list = await runCli(['config', 'list', '--json', '--concurrency', '8'], { env: e });
    const settings = (JSON.parse(list.stdout) as { settings: Record<string, { value: unknown; source: string }> }).settings;
    expect(settings.marketplace).toEqual({ value: 'EBAY_DE', source: 'profile' });
    expect(settings.concurrency).toEqual({ value: '8', source: 'flag' });
    expect(settings.shape).toEqual({ value: 'flat', source: 'default' });
    expect(settings.base_url).toEqual({ value: null, source: 'unset' });

    expect((await runCli(['config', 'unset', 'marketplace'], { env: e })).code).toBe(0);
    expect((await runCli(['config', 'get', 'marketplace'], { env: e })).code).toBe(1);

    const path = (await runCli(['config', 'path'], { env: e })).stdout.trim();
    expect(path.startsWith(dir)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('rejects unknown keys with a did-you-mean, and bad values (exit 2)', async () => {
    const e = { LISTINGS_CONFIG_DIR: tempDir() };
    const unknown = await runCli(['config', 'set', 'market_place', 'EBAY_US'], { env: e });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/did you mean marketplace\?/);
    const bad = await runCli(['config', 'set', 'concurrency', 'lots'], { env: e });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/concurrency: must be a whole number/);
    const shape = await runCli(['config', 'set', 'shape', 'round'], { env: e });
    expect(shape.code).toBe(2);
  });

  it('a raw api_key in the profile is masked by list and the file is 0600', async () => {
    const dir = tempDir();
    const secret = 'sk_profile_secret_value_987654';
    const set = await runCli(['config', 'set', 'api_key', secret], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(set.code).toBe(0);
    expect(set.stderr).toMatch(/warning/);
    const list = await runCli(['config', 'list'], { env: { LISTINGS_CONFIG_DIR: dir } });
    expect(list.stdout + list.stderr + set.stdout + set.stderr).not.toContain(secret);
    expect(list.stdout).toMatch(/api_key\s+sk_\*\*\*\*/);
    const file = readdirSync(dir).find((name) => name.endsWith('.json'))!;
    expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, file), 'utf8')).toContain(secret);
  });

  it('an unknown --profile is a configuration error', async () => {
    const r = await runCli(['create', 'X', '--profile', 'nope'], { env: { LISTINGS_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile named "nope"/);
  });
});
