import { redactSourceName } from '../secret-url.js';
import { redact } from '../secrets.js';
import { shellWordsHidingValues, type SecretWords } from '../shell-words.js';

/** A word with credentials (a source address's userinfo or token, a registered secret) is read from a variable. */
const CREDENTIAL_WORDS: SecretWords = {
  variable: 'LISTINGS_SOURCE_URL',
  shown: (word) => {
    const shown = redact(redactSourceName(word));
    return shown === word ? undefined : shown;
  },
};

/**
 * A command's words quoted for a POSIX shell with no secret in them, still runnable as pasted: each word that holds
 * credentials is `"$LISTINGS_SOURCE_URL"` (then `_2`...), each value of the source header option (`headerOption`, as
 * the words name it) `"Name: $LISTINGS_SOURCE_HEADER"`; `set` says what to set each variable to (the credentials
 * masked), empty when nothing was hidden.
 */
export function secretFreeWords(words: readonly string[], headerOption: string): { words: string[]; set: string } {
  const hidden = shellWordsHidingValues(words, headerOption, 'LISTINGS_SOURCE_HEADER', CREDENTIAL_WORDS);
  return { words: hidden.words, set: hidden.variables.length === 0 ? '' : `first set ${hidden.variables.join(', ')}: a secret is never shown` };
}
