import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/cli.js';

/**
 * Only `src/cli` words a setting as a flag: the core names the setting (src/errors.ts `Setting`) and says what to do
 * without a flag, so a library caller never reads `--something` it cannot pass. Comments may name flags (they are for
 * the next person, not the user); string literals and template text may not. CSS custom properties (`--name:`,
 * `var(--name`) in the HTML report's stylesheet are not flags.
 */

const SRC = join(REPO_ROOT, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join(SRC, 'cli') ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `--name` not preceded by a letter, digit or `-`, unless it is a CSS custom property. */
const FLAG = /(?<![\w-])--[a-z][\w-]*/g;

/** Template text that ends in `--` not preceded by a letter, digit or `-`: a flag whose name is substituted. */
const BUILT_FLAG = /(?<![\w-])--$/;

export function flagsIn(text: string): string[] {
  return [...text.matchAll(FLAG)]
    .filter((m) => text[m.index + m[0].length] !== ':' && !text.slice(0, m.index).endsWith('var('))
    .map((m) => m[0]);
}

/** Each string literal and piece of template text in a file that names a flag, as `path:line: --flag`. */
function flagTexts(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      for (const flag of flagsIn(node.text)) found.push(`${relative(REPO_ROOT, path)}:${line}: ${flag}`);
      // A flag built from a setting's name (`--${key}`) is a flag too.
      if ((ts.isTemplateHead(node) || ts.isTemplateMiddle(node)) && BUILT_FLAG.test(node.text)) found.push(`${relative(REPO_ROOT, path)}:${line}: --\${...}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('no --flag text in src outside src/cli', () => {
  it('finds flags, and passes CSS custom properties and decrements', () => {
    expect(flagsIn('add <span class="mono">--report run.csv</span>')).toEqual(['--report']);
    expect(flagsIn('(--retry-failed of this report sends them)')).toEqual(['--retry-failed']);
    expect(flagsIn("give --data a file of its own")).toEqual(['--data']);
    expect(flagsIn(':root{--bg:#fff}.tile{background:var(--c,var(--fg))}\n--good-bg:#e3f4ec;')).toEqual([]);
    expect(flagsIn('i--; a-b--c')).toEqual([]);
  });

  it('no string or template text in the core names a flag', () => {
    const files = tsFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(flagTexts)).toEqual([]);
  });
});
