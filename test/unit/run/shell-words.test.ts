import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellWord } from '../../../src/run/shell-words.js';

/** Paths a catalog, a report or a journal may have: each must come back from a shell as the very word it was, running nothing. */
const HOSTILE = [
  'catalog.csv',
  'my catalog.csv',
  "it's here.csv",
  "''",
  '$(touch PWNED)',
  '`touch PWNED`',
  '"; touch PWNED; echo "',
  'line\nbreak; touch PWNED',
  'tab\there',
  '*.csv',
  '~/catalog.csv',
  '=ls',
  '-',
  '',
  'a\\b',
  '$HOME ${HOME} !! #comment & | ; < > ( ) { }',
  'ünïcödé ✓.csv',
];

/** The words a shell reads from `line`, as printf gives them back NUL-separated; run in `cwd`. */
function wordsOf(shell: string, line: string, cwd: string): string[] {
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${line}`], { cwd, encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shellWord: a word for a POSIX shell', () => {
  it('leaves plain words as they are and quotes any other', () => {
    expect(shellWord('catalog.csv')).toBe('catalog.csv');
    expect(shellWord('--retry-failed')).toBe('--retry-failed');
    expect(shellWord('s3://bucket/key.csv')).toBe('s3://bucket/key.csv');
    expect(shellWord('my catalog.csv')).toBe("'my catalog.csv'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('')).toBe("''");
    expect(shellWord('=ls')).toBe("'=ls'");
  });

  for (const shell of ['sh', 'bash']) {
    it(`${shell}: every hostile word comes back as itself, and nothing runs`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'listings-shell-'));
      expect(wordsOf(shell, shellCommand(HOSTILE), dir)).toEqual(HOSTILE);
      expect(existsSync(join(dir, 'PWNED'))).toBe(false);
    });
  }
});
