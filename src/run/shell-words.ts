/**
 * Words for a POSIX shell: a command a person can paste, whatever the words hold. A word of only safe characters is
 * written as it is; any other is single-quoted, its own `'` written as `'\''`. Inside single quotes no character
 * means anything to the shell (no `$(...)`, backquote, glob, `~` or line break is read), so a hostile path comes
 * out as the very argument it is, in sh, dash, bash and zsh alike.
 */

/** Characters that mean nothing to a POSIX shell anywhere in a word (`:` and `=`, but not first: zsh expands a leading `=`). */
const PLAIN = /^[\w@%+:,./-][\w@%+=:,./-]*$/;

/** One word, quoted for a POSIX shell when it needs it; the empty word as `''`. */
export function shellWord(word: string): string {
  if (PLAIN.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The words as one command line for a POSIX shell. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
