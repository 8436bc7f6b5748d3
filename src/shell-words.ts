import { hasControl } from './printable.js';

/**
 * Words for a POSIX shell: a command a person can paste, whatever the words hold. A word of only safe characters is
 * written as it is; any other is single-quoted, its own `'` written as `'\''`. Inside single quotes no character
 * means anything to the shell (no `$(...)`, backquote, glob, `~` or line break is read), so a hostile path comes
 * out as the very argument it is, in sh, dash, bash and zsh alike. A word holding a control or direction character
 * (which every output escapes, so it could not be pasted as itself), or a CI runner's `##[`, is written `$'...'`
 * with escapes, on one line: bash, zsh, ksh and POSIX.1-2024 read it; dash before 0.5.13 does not.
 */

/** Characters that mean nothing to a POSIX shell anywhere in a word (`:` and `=`, but not first: zsh expands a leading `=`). */
const PLAIN = /^[\w@%+:,./-][\w@%+=:,./-]*$/;

/** One word, quoted for a POSIX shell when it needs it; the empty word as `''`. */
export function shellWord(word: string): string {
  if (PLAIN.test(word)) return word;
  if (hasControl(word) || RUNNER_COMMAND.test(word)) return `$'${word.replace(ANSI_C_ESCAPED, ansiCEscape)}'`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

// A CI runner's `##[`, `##vso[`, `##teamcity[`: every line the tool writes has its first `#` escaped (runnerSafe), which
// '...' would keep as six characters, naming another file. In `$'...'` that `#` is written `\x23`, which the shell reads back.
const RUNNER_COMMAND = /#(?=#[A-Za-z]*\[)/;
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const ANSI_C_ESCAPED = /[\\'\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|#(?=#[A-Za-z]*\[)/g;

/** One character inside `$'...'`: `\\`, `\'`, `\n`, `\t`, `\x1b` (`\x23` for a runner command's `#`), or `\u202e` past ASCII (a `\x` there would be a lone byte). */
function ansiCEscape(char: string): string {
  if (char === '\\' || char === "'") return `\\${char}`;
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  const code = char.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The words as one command line for a POSIX shell. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/**
 * One word of `prefix` followed by the value of the shell variable `variable`, which the shell expands and nothing
 * else: `"Authorization: $TOKEN"`, or `'X-$(id): '"$TOKEN"` when the prefix holds what double quotes would read.
 */
export function shellWordWithVariable(prefix: string, variable: string): string {
  return /^[\w@%+=:,./ -]*$/.test(prefix) ? `"${prefix}$${variable}"` : `${shellWord(prefix)}"$${variable}"`;
}

/** Words that hold a secret of their own (a source address with credentials): each read whole from a variable. */
export interface SecretWords {
  /** The variable's name (then `_2`, `_3`). */
  variable: string;
  /** The word as it may be shown (its secret masked), or undefined for a word that holds none. */
  shown: (word: string) => string | undefined;
}

/**
 * `words` quoted for a POSIX shell, the value of each `option` (`Name: value`, a header that often holds a token)
 * never shown but read from a variable the person sets: `--source-header "Authorization: $LISTINGS_SOURCE_HEADER"`,
 * then `_2`, `_3`. `variables` says what each is to hold: `LISTINGS_SOURCE_HEADER to the Authorization header's value`.
 * With `secretWords`, each word that holds a secret is read whole from a variable too: `"$LISTINGS_SOURCE_URL"`.
 */
export function shellWordsHidingValues(words: readonly string[], option: string, variable: string, secretWords?: SecretWords): { words: string[]; variables: string[] } {
  const out: string[] = [];
  const variables: string[] = [];
  let secrets = 0;
  let headers = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    const joined = word.startsWith(`${option}=`);
    const shown = !joined && word !== option ? secretWords?.shown(word) : undefined;
    if (shown !== undefined) {
      const named = `${secretWords?.variable ?? ''}${secrets++ === 0 ? '' : `_${secrets}`}`;
      variables.push(`${named} to ${shown} with its credentials`);
      out.push(`"$${named}"`);
      continue;
    }
    if (!joined && (word !== option || i + 1 === words.length)) {
      out.push(shellWord(word));
      continue;
    }
    const value = joined ? word.slice(option.length + 1) : (words[++i] ?? '');
    const colon = value.indexOf(':');
    const name = colon < 0 ? '' : value.slice(0, colon).trim();
    const named = `${variable}${headers++ === 0 ? '' : `_${headers}`}`;
    variables.push(`${named} to the ${name === '' ? 'whole header' : `${name} header's value`}`);
    const prefix = name === '' ? '' : `${name}: `;
    out.push(...(joined ? [shellWordWithVariable(`${option}=${prefix}`, named)] : [option, shellWordWithVariable(prefix, named)]));
  }
  return { words: out, variables };
}
