import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { identityOf } from './file-identity.js';
import { printable } from '../printable.js';
import { dashRefused, inspectOutput, makeDirs, type OutputRules } from './output-target.js';

/** A file a run will write, named the way the person who asked for it knows it (e.g. `report r.csv`). */
export interface PlannedOutput {
  path: string;
  /** What the file is, for the message: `report`, `journal`, `state file`. */
  role: string;
  /** What may be at the path besides a regular file, and the modes (see OutputRules). */
  rules?: OutputRules;
}

/**
 * Check, before anything is sent, that every output of a run can be written: no two outputs on one path, none a
 * directory (or a link of another user's, a socket, a pipe where a file is needed: see inspectOutput), each in a
 * directory that exists and is writable (missing directories are made here, with the output's modes). Throws a
 * ConfigError naming the file and why; a run that passes can still meet a full disk, but not a typo.
 */
export async function checkOutputs(outputs: readonly PlannedOutput[], cwd: string): Promise<void> {
  const seen = new Map<string, PlannedOutput>();
  for (const output of outputs) {
    const full = resolve(cwd, output.path);
    const earlier = seen.get(full);
    if (earlier !== undefined) {
      const clash = earlier.role === output.role ? `the ${output.role} ${output.path} is named twice` : `the ${earlier.role} and the ${output.role} are the same file, ${output.path}`;
      throw new ConfigError(`${clash}: each output needs its own path`, { hint: 'nothing was sent' });
    }
    seen.set(full, output);
  }
  const files = await Promise.all([...seen].map(([full, output]) => checkOne(full, output)));
  // Two spellings of one file (a link to it, a linked directory, a hard link): the later output would replace the
  // earlier at the end of the run. Pipes and devices are left out: they are written in place, not replaced.
  const byFile = new Map<string, PlannedOutput>();
  for (const [i, [, output]] of [...seen].entries()) {
    const file = files[i];
    if (file === undefined) continue;
    const earlier = byFile.get(file);
    if (earlier !== undefined) {
      throw new ConfigError(`the ${earlier.role} ${printable(earlier.path, { lines: false })} and the ${output.role} ${printable(output.path, { lines: false })} are the same file: each output needs its own file`, {
        hint: 'nothing was sent',
      });
    }
    byFile.set(file, output);
  }
}

/** The file an output will write, the same for every spelling of it, or undefined for a pipe or a device. */
async function checkOne(full: string, output: PlannedOutput): Promise<string | undefined> {
  const fail = (why: string): never => {
    throw new ConfigError(`cannot write the ${output.role} ${output.path}: ${why}`, { hint: 'choose another path; nothing was sent' });
  };
  const dash = dashRefused(output.path);
  if (dash !== undefined) fail(dash);
  const target = await inspectOutput(full, output.rules);
  if ('refused' in target) return fail(target.refused);
  if (target.kind !== 'missing') {
    if (!(await writable(target.path))) fail('permission denied');
    if (target.kind !== 'file') return undefined;
    return identityOf(await stat(target.path, { bigint: true }));
  }
  // The nearest ancestor that exists must be a writable directory.
  let dir = dirname(full);
  for (; ; dir = dirname(dir)) {
    const ancestor = await stat(dir).catch(() => undefined);
    if (ancestor !== undefined) {
      if (!ancestor.isDirectory()) fail(`${dir} is not a directory`);
      if (!(await writable(dir))) fail(`the directory ${dir} is not writable`);
      break;
    }
    if (dirname(dir) === dir) fail('no part of its directory exists');
  }
  await makeDirs(dirname(full), output.rules).catch((error: NodeJS.ErrnoException) => {
    fail(`cannot create the directory ${error.path ?? dirname(full)} (${error.code ?? error.message})`);
  });
  // A folder that cannot be resolved (no search permission on the way) is compared as spelt.
  return join(await realpath(dirname(full)).catch(() => dirname(full)), basename(full));
}

async function writable(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
