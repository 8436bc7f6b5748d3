import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellWord, shellWordsHidingValues } from '../../../src/shell-words.js';
import { printable, runnerSafe } from '../../../src/printable.js';
import { wordsOf } from '../../helpers/shell-words.js';
import { tempDir } from '../../helpers/tmp.js';

/** Paths a catalog, a report or a journal may have: each must come back from a shell as the very word it was, running nothing. */
const HOSTILE = [
  'catalog.csv',
  'my catalog.csv',
  "it's here.csv",
  "''",
  '$(touch PWNED)',
  '`touch PWNED`',
  '"; touch PWNED; echo "',
  '*.csv',
  '~/catalog.csv',
  '=ls',
  '-',
  '',
  'a\\b',
  '$HOME ${HOME} !! #comment & | ; < > ( ) { }',
  'ünïcödé ✓.csv',
];

/** Words every output escapes (a line break, a tab, ESC, a C1 control, a direction override), written `$'...'`. */
const CONTROLS = ['line\nbreak; touch PWNED', 'tab\there', "e\u001b]0;x\u0007'\\x41", 'c1\u0085 bidi\u202eevil\u2066'];

describe('shellWord: a word for a POSIX shell', () => {
  it('leaves plain words as they are and quotes any other', () => {
    expect(shellWord('catalog.csv')).toBe('catalog.csv');
    expect(shellWord('--retry-failed')).toBe('--retry-failed');
    expect(shellWord('s3://bucket/key.csv')).toBe('s3://bucket/key.csv');
    expect(shellWord('my catalog.csv')).toBe("'my catalog.csv'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('')).toBe("''");
    expect(shellWord('=ls')).toBe("'=ls'");
    expect(shellWord("e\u001b[2J'\n")).toBe("$'e\\x1b[2J\\'\\n'");
  });

  for (const shell of ['bash', 'zsh']) {
    it(`${shell}: a word with controls is one printable line that comes back as itself`, (context) => {
      if (spawnSync(shell, ['-c', 'exit 0']).status !== 0) context.skip();
      const line = shellCommand(CONTROLS);
      expect(printable(line, { lines: false })).toBe(line);
      const dir = tempDir('listings-shell-');
      expect(wordsOf(shell, line, dir, { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' })).toEqual(CONTROLS);
      expect(existsSync(join(dir, 'PWNED'))).toBe(false);
    });
  }

  for (const shell of ['sh', 'bash']) {
    it(`${shell}: every hostile word comes back as itself, and nothing runs`, () => {
      const dir = tempDir('listings-shell-');
      expect(wordsOf(shell, shellCommand(HOSTILE), dir)).toEqual(HOSTILE);
      expect(existsSync(join(dir, 'PWNED'))).toBe(false);
    });
  }
});

describe('shellWordsHidingValues: a secret option read from a variable', () => {
  const SECRET = "Bearer tok'$(touch PWNED)`touch PWNED`-1234";
  const NAMES = ['Authorization', 'X-$(touch PWNED)', 'X-`touch PWNED`', 'X-$HOME', "X-it's", 'X-!!', 'X-"a"\\'];

  it('names the variable in place of the value, keeps the header name, says what each variable holds', () => {
    const { words, variables } = shellWordsHidingValues(['validate', 'https://h/c.csv', '--source-header', `Authorization: ${SECRET}`, '--source-header=X-Token: t0ken-5678', '--source-header', 'no colon'], '--source-header', 'VAR');
    expect(words).toEqual(['validate', 'https://h/c.csv', '--source-header', '"Authorization: $VAR"', '"--source-header=X-Token: $VAR_2"', '--source-header', '"$VAR_3"']);
    expect(variables).toEqual(["VAR to the Authorization header's value", "VAR_2 to the X-Token header's value", 'VAR_3 to the whole header']);
    expect(words.join(' ')).not.toMatch(/tok|t0ken|no colon/);
  });

  it('with secretWords, a word that holds a secret is read whole from its own variable, and says what it is to hold', () => {
    const secretWords = { variable: 'URL', shown: (word: string) => (word.includes('pw') ? word.replace('pw', '****') : undefined) };
    const { words, variables } = shellWordsHidingValues(['validate', 'https://u:pw@h/c.csv', '--source-header', 'X-Key: pw2', 'https://h/pw.csv'], '--source-header', 'VAR', secretWords);
    expect(words).toEqual(['validate', '"$URL"', '--source-header', '"X-Key: $VAR"', '"$URL_2"']);
    expect(variables).toEqual(['URL to https://u:****@h/c.csv with its credentials', "VAR to the X-Key header's value", 'URL_2 to https://h/****.csv with its credentials']);
  });

  for (const shell of ['sh', 'bash', 'zsh']) {
    it(`${shell}: each word comes back as the option and the header with the variable's value, and nothing else runs`, (context) => {
      if (spawnSync(shell, ['-c', 'exit 0']).status !== 0) context.skip();
      const dir = tempDir('listings-shell-');
      const argv = NAMES.flatMap((name, i) => (i % 2 === 0 ? ['--source-header', `${name}: hidden`] : [`--source-header=${name}: hidden`]));
      const { words } = shellWordsHidingValues(argv, '--source-header', 'LISTINGS_SOURCE_HEADER');
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir };
      NAMES.forEach((_, i) => (env[`LISTINGS_SOURCE_HEADER${i === 0 ? '' : `_${i + 1}`}`] = SECRET));
      const expected = NAMES.flatMap((name, i) => (i % 2 === 0 ? ['--source-header', `${name}: ${SECRET}`] : [`--source-header=${name}: ${SECRET}`]));
      expect(wordsOf(shell, words.join(' '), dir, env)).toEqual(expected);
      expect(existsSync(join(dir, 'PWNED'))).toBe(false);
    });
  }
});

describe('shellWord: a word holding a CI runner command', () => {
  // Every line the tool writes passes runnerSafe, which writes the `#` opening `##[` as `\u0023`: inside '...' that
  // stayed six characters, so the command pasted from the terminal or the job summary named another file.
  const WORDS = ['x##[warning]y.csv', 'a##vso[task.setvariable]b', '###[error]', "it's ##teamcity[x]"];
  for (const shell of ['bash', 'zsh']) {
    it(`${shell}: the line passes the runner guard unchanged, and comes back as the very words`, (context) => {
      if (spawnSync(shell, ['-c', 'exit 0']).status !== 0) context.skip();
      const line = shellCommand(WORDS);
      expect(runnerSafe(line)).toBe(line);
      const dir = tempDir('listings-shell-');
      expect(wordsOf(shell, line, dir, { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' })).toEqual(WORDS);
    });
  }
});
