import type { Check } from '../../client/diagnose.js';
import { checksFault, diagnoseSetup } from '../../setup/diagnose-setup.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { exitCodeOfFault } from '../../run/verdict.js';
import { err, out, paint, paintOut } from '../output.js';
import { settingsRequest } from '../settings.js';
import { cliName } from '../setting-flags.js';

/** The flags of `listings doctor`. */
export interface DoctorFlags {
  timeout: number;
  json?: boolean;
}

const SYMBOL: Record<Check['status'], string> = { ok: paintOut.green('✔'), fail: paintOut.red('✖'), warn: paintOut.yellow('!'), skip: paintOut.dim('-') };
const NAME_WIDTH = 9;

/** One line per check, and under a failure or a warning what to do about it. */
export function printChecks(checks: readonly Check[]): void {
  for (const check of checks) {
    const message = check.status === 'skip' ? paintOut.dim(check.message) : check.message;
    out(`${SYMBOL[check.status]} ${check.name.padEnd(NAME_WIDTH)} ${message}`);
    if (check.fix !== undefined && (check.status === 'fail' || check.status === 'warn')) out(`  ${' '.repeat(NAME_WIDTH)} ${paintOut.dim('fix:')} ${check.fix}`);
  }
}

/** `listings doctor`: the checks of src/setup/diagnose-setup.ts, printed (or as JSON); exit 2 or 3 when one failed. */
export async function runDoctor(flags: DoctorFlags & Record<string, unknown>, env: Record<string, string | undefined> = process.env): Promise<void> {
  const checks = await diagnoseSetup({ request: settingsRequest(flags), timeoutMs: flags.timeout, cwd: process.cwd(), env, name: cliName });
  const code = exitCodeOfFault(checksFault(checks));
  if (flags.json) {
    const shown = checks.map(({ name, status, message, fix }) => ({ name, status, message, fix: fix ?? null }));
    out(JSON.stringify({ ok: code === EXIT.ok, exit_code: code, checks: shown }));
  } else {
    printChecks(checks);
    const failed = checks.filter((c) => c.status === 'fail').length;
    const warned = checks.filter((c) => c.status === 'warn').length;
    const warnings = warned === 0 ? '' : `, ${warned} ${warned === 1 ? 'warning' : 'warnings'}`;
    if (failed === 0) err(paint.green(`all checks passed${warnings}`));
    else err(paint.red(`${failed} ${failed === 1 ? 'check' : 'checks'} failed${warnings}: exit ${code} (${code === EXIT.usage ? 'the configuration' : 'the service'})`));
  }
  if (code !== EXIT.ok) throw new ExitError(code);
}
