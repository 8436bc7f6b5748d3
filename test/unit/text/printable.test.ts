import { describe, expect, it } from 'vitest';
import { printable } from '../../../src/printable.js';

describe('printable', () => {
  it.each([
    ['clear screen and a window title', 'bad \u001b[2J\u001b]0;pwned\u0007', 'bad \\u001b[2J\\u001b]0;pwned\\u0007'],
    ['a C1 control (CSI)', 'a\u009b31mb', 'a\\u009b31mb'],
    ['DEL and NUL', 'a\u007fb\u0000', 'a\\u007fb\\u0000'],
    ['a right-to-left override (Trojan source)', 'abc\u202edcb', 'abc\\u202edcb'],
    ['plain text, accents and emoji untouched', 'Tasse à café ☕ 100%', 'Tasse à café ☕ 100%'],
  ])('%s', (_name, input, shown) => {
    expect(printable(input)).toBe(shown);
  });

  it('keeps tab and line breaks unless asked not to', () => {
    expect(printable('a\tb\r\nc')).toBe('a\tb\r\nc');
    expect(printable('a\tb\r\nc', { lines: false })).toBe('a\\u0009b\\u000d\\u000ac');
  });

  it('answers the same when called again (no state left in the pattern)', () => {
    expect(printable('\u001b')).toBe('\\u001b');
    expect(printable('\u001b')).toBe('\\u001b');
    expect(printable('ok')).toBe('ok');
  });
});
