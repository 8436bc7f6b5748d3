import { describe, expect, it } from 'vitest';
import { cliName } from '../../../src/cli/setting-flags.js';
import { nextStep, type NextStepInput } from '../../../src/run/next-step.js';
import { registerSecret } from '../../../src/secrets.js';

/** A publish of catalog.csv that ended as `kind` with these counts; the CLI's names. */
function publish(kind: NextStepInput['verdict']['kind'], given: Partial<NextStepInput> = {}): NextStepInput {
  const exitCode = ({ 'ok': 0, 'rows-failed': 1, 'max-errors': 1, 'usage': 2, 'service': 3, 'source': 4, 'output': 74, 'interrupted': 130 } as const)[kind];
  return { command: 'publish', verdict: { kind, exitCode }, counts: { failed: 0, invalid: 0, not_attempted: 0 }, sources: ['catalog.csv'], name: cliName, ...given };
}

describe('nextStep: every ending of a run -> the one command that continues it, and why', () => {
  const table: [name: string, input: NextStepInput, command: string | null, why?: RegExp][] = [
    ['exit 0: none', publish('ok'), null],
    ['a usage error: none', publish('usage'), null],
    ['failed rows and a CSV report: retry from it', publish('rows-failed', { counts: { failed: 28, invalid: 0, not_attempted: 0 }, reports: ['results.csv'], journal: true }), 'listings publish catalog.csv --retry-failed results.csv', /^send the 28 failed rows again$/],
    ['an NDJSON report is read back too', publish('max-errors', { counts: { failed: 3, invalid: 0, not_attempted: 40 }, reports: ['run.html', 'run.ndjson'] }), 'listings publish catalog.csv --retry-failed run.ndjson', /^send the 3 failed and 40 not attempted rows again$/],
    ['an HTML or JUnit report is not read back: the journal', publish('rows-failed', { counts: { failed: 1, invalid: 0, not_attempted: 0 }, reports: ['run.html', 'run.xml'], journal: true }), 'listings publish catalog.csv --resume', /^send the 1 failed row again$/],
    ['no report, no journal: the same run again', publish('rows-failed', { counts: { failed: 2, invalid: 0, not_attempted: 0 } }), 'listings publish catalog.csv', /Idempotency-Key/],
    ['invalid rows: fix them, then resume', publish('rows-failed', { counts: { failed: 0, invalid: 2, not_attempted: 0 }, reports: ['results.csv'], journal: true }), 'listings publish catalog.csv --resume', /^fix the 2 invalid rows at the lines shown, then continue where this run stopped$/],
    ['a dry run with invalid rows: check again', publish('rows-failed', { counts: { failed: 0, invalid: 1, not_attempted: 0 }, dryRun: true, repeat: ['--dry-run'] }), 'listings publish catalog.csv --dry-run', /^fix the 1 invalid row at the lines shown, then check again$/],
    ['interrupted with a journal: resume (whatever the reports)', publish('interrupted', { counts: { failed: 0, invalid: 0, not_attempted: 60 }, reports: ['results.csv'], journal: true }), 'listings publish catalog.csv --resume', /^continue where this run stopped$/],
    ['interrupted without a journal: the report', publish('interrupted', { reports: ['results.csv'], repeat: ['--no-journal'] }), 'listings publish catalog.csv --no-journal --retry-failed results.csv'],
    ['the service unusable: the cause first, then resume', publish('service', { journal: true, stopped: { reason: 'API key rejected (HTTP 401 Unauthorized)', hint: 'check LISTINGS_API_KEY' } }), 'listings publish catalog.csv --resume', /^fix the cause first \(API key rejected\), then continue where this run stopped$/],
    ['an output that failed: make room, then resume', publish('output', { journal: true, outputPath: 'out/results.csv' }), 'listings publish catalog.csv --resume', /^make room for out\/results\.csv .*then continue where this run stopped$/],
    ['the source cut: fix it, then resume', publish('source', { journal: true }), 'listings publish catalog.csv --resume', /^make the source readable to its end/],
    ['validate with invalid rows: fix, validate again', { command: 'validate', verdict: { kind: 'rows-failed', exitCode: 1 }, counts: { failed: 0, invalid: 5, not_attempted: 0 }, sources: ['a.csv', 'b.csv'], repeat: ['--marketplace', 'EBAY_US'], name: cliName }, 'listings validate a.csv b.csv --marketplace EBAY_US', /^fix the 5 invalid rows at the lines shown, then validate again$/],
    ['a stream the service stopped: start it again', { command: 'stream', verdict: { kind: 'service', exitCode: 3 }, counts: { failed: 0, invalid: 0, not_attempted: 0 }, sources: ['kafka://k/t'], name: cliName }, 'listings stream kafka://k/t', /^fix the cause first, then start the worker again/],
  ];
  for (const [name, input, command, why] of table) {
    it(name, () => {
      const step = nextStep(input);
      expect(step?.command ?? null).toBe(command);
      if (why !== undefined) expect(step?.why).toMatch(why);
    });
  }

  it('the library names settings by their option names', () => {
    const { name: _cli, ...library } = publish('interrupted', { journal: true });
    expect(nextStep(library)?.command).toBe('listings publish catalog.csv resume');
  });

  it('quotes hostile paths: spaces, quotes, command substitution, line breaks', () => {
    const step = nextStep(publish('rows-failed', { sources: ["my cat's.csv", '$(touch x)'], counts: { failed: 1, invalid: 0, not_attempted: 0 }, reports: ['out\n.csv'] }));
    expect(step?.command).toBe(`listings publish 'my cat'\\''s.csv' '$(touch x)' --retry-failed $'out\\n.csv'`);
  });

  it('never prints a credential: a URL with a token or a user, a registered secret, a source header; each read from a variable it names', () => {
    registerSecret('hdr-secret-0123456789');
    const step = nextStep(publish('interrupted', { journal: true, sources: ['https://user:pass@example.com/c.csv?token=tok-123'], repeat: ['--source-header', 'X-Tenant: shop-7', '--tag', 'Bearer hdr-secret-0123456789'] }));
    expect(`${step?.command} ${step?.why}`).not.toMatch(/pass|tok-123|hdr-secret|shop-7/);
    expect(step?.command).toBe('listings publish "$LISTINGS_SOURCE_URL" --source-header "X-Tenant: $LISTINGS_SOURCE_HEADER" --tag "$LISTINGS_SOURCE_URL_2" --resume');
    expect(step?.why).toContain(
      "(first set LISTINGS_SOURCE_URL to https://****@example.com/c.csv?token=**** with its credentials, LISTINGS_SOURCE_HEADER to the X-Tenant header's value, LISTINGS_SOURCE_URL_2 to Bearer **** with its credentials: a secret is never shown)",
    );
  });
});
