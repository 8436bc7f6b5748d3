import type { ExpectStatic } from 'vitest';

/** Terminal controls a hostile text may carry, and what each is in a failure's words. */
const CONTROLS: [string, string][] = [
  ['\u001b', 'an ESC byte'],
  ['\u0007', 'a BEL byte'],
  ['\u009b', 'a C1 CSI'],
];

/** No terminal control (ESC, BEL, C1 CSI) and no `key` in any of the named texts a run wrote. */
export function expectInert(expect: ExpectStatic, texts: readonly (readonly [string, string])[], key: string): void {
  for (const [name, text] of texts) {
    for (const [char, what] of CONTROLS) expect(text.includes(char), `${name} holds ${what}:\n${text.slice(0, 2000)}`).toBe(false);
    expect(text, `${name} holds the key`).not.toContain(key);
  }
}
