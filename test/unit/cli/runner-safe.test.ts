import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runnerSafe, terminalSafe } from '../../../src/printable.js';
import { commandOf } from '../../helpers/workflow-commands.js';

/** A line as out() and err() write it: secrets aside, terminal-safe then runner-safe. */
const written = (text: string): string => runnerSafe(terminalSafe(text, false));

describe('runnerSafe: no line the tool writes is a CI runner command', () => {
  const cases: [input: string, shown: string][] = [
    ['::error::pwned', '\\u003a:error::pwned'],
    ['  ::warning file=x::y', '  \\u003a:warning file=x::y'],
    ['\t\u00a0\u2003::stop-commands::tok', '\t\u00a0\u2003\\u003a:stop-commands::tok'],
    ['a.csv:2: ok\n::error::x\nnext', 'a.csv:2: ok\n\\u003a:error::x\nnext'],
    ['\u001b[31m::error::red', '\u001b[31m\\u003a:error::red'],
    ['x ##[error]y ##[group]z', 'x \\u0023#[error]y \\u0023#[group]z'],
    ['###[x', '#\\u0023#[x'],
    ['##vso[task.setvariable variable=x]1 ##teamcity[message]', '\\u0023#vso[task.setvariable variable=x]1 \\u0023#teamcity[message]'],
    // Not commands: left as written.
    [':single colon', ':single colon'],
    ['a::b mid-line', 'a::b mid-line'],
    ['## heading [x]', '## heading [x]'],
    ['{"sku":"::x"}', '{"sku":"::x"}'],
  ];

  it.each(cases)('%j -> %j', (input, shown) => {
    expect(runnerSafe(input)).toBe(shown);
  });

  it('keeps a JSON line valid JSON with the same value', () => {
    const value = { sku: 'x ##[error]y', note: '##vso[task.complete]' };
    expect(JSON.parse(runnerSafe(JSON.stringify(value)))).toEqual(value);
  });

  it("passes the tool's own workflow commands with lineCommands off, but never a ##[ in them", () => {
    expect(runnerSafe('::error file=a.csv,line=2::m', false)).toBe('::error file=a.csv,line=2::m');
    expect(runnerSafe('::error::m ##[x]', false)).toBe('::error::m \\u0023#[x]');
  });

  it('leaves no line of any text a command, split as the runner splits lines', () => {
    const pieces = fc.constantFrom('::', ':', '##[', '##vso[', '#', '[', ' ', '\t', '\n', '\r', '\r\n', '\u00a0', '\u001b[1m', 'error', '=', ',');
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 12 }), (parts) => {
        const text = written(parts.join(''));
        expect(text).not.toMatch(/##[A-Za-z]*\[/);
        for (const line of text.split(/\r\n|\r|\n/)) expect(commandOf(line), line).toBeUndefined();
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('terminalSafe: characters a terminal shows as nothing are written out', () => {
  it.each([
    ['sku\u200b', 'sku\\u200b'],
    ['\ufeffsku', '\\ufeffsku'],
    ['a\u2060b\u2061c\u2064d', 'a\\u2060b\\u2061c\\u2064d'],
  ])('%j is shown as %j', (input, shown) => {
    expect(terminalSafe(input, false)).toBe(shown);
  });

  it('keeps the joiners a script needs (ZWNJ, ZWJ in an emoji sequence) and ordinary non-ASCII text', () => {
    const text = 'می\u200cخواهم 👨\u200d👩\u200d👧 Größe 5″';
    expect(terminalSafe(text, false)).toBe(text);
  });
});
