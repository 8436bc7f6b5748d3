import { describe, expect, it } from 'vitest';
import { redactCut, registerSecret } from '../../../src/secrets.js';

const SECRET = 'cutSECRET-0a1b2c3d';
registerSecret(SECRET);

/** A text cut off at its end (a body read only so far): a secret across the cut is masked in part too. */
describe('redactCut', () => {
  it.each([
    ['a whole secret', `before ${SECRET} after`, 'before **** after'],
    ['a start of the secret at the end', `before ${SECRET.slice(0, 8)}`, 'before ****'],
    ['four characters of it at the end', `before ${SECRET.slice(0, 4)}`, 'before ****'],
    ['three characters (what maskSecret shows): kept', `before ${SECRET.slice(0, 3)}`, `before ${SECRET.slice(0, 3)}`],
    ['the secret whole, then its start cut off', `${SECRET} and ${SECRET.slice(0, 10)}`, '**** and ****'],
    ['no secret', 'plain text', 'plain text'],
  ])('%s', (_name, text, expected) => {
    expect(redactCut(text)).toBe(expected);
  });
});
