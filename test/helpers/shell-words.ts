import { execFileSync } from 'node:child_process';

/** The words `shell` reads from the command line `line` (as printf gives them back NUL-separated), run in `cwd`. */
export function wordsOf(shell: string, line: string, cwd: string, env?: NodeJS.ProcessEnv): string[] {
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${line}`], { cwd, encoding: 'utf8', env });
  return out.split('\0').slice(0, -1);
}
