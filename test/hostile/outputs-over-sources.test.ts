import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { publishEnv, writeCatalog } from '../helpers/publish.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Hostile corpus: an output named like the catalog being read (a slip of the hand, a link, a file:// spelling).
 * Before: `validate c.csv --out c.csv` emptied the catalog when it opened the file, then said the file was empty;
 * `--report c.csv` put the report in place of the catalog and exited 0. Both lost the catalog.
 */

const CATALOG = 'sku,title\nA1,Mug\nA2,Cup\n';

function catalogIn(dir: string): string {
  const path = join(dir, 'catalog.csv');
  writeFileSync(path, CATALOG);
  symlinkSync(path, join(dir, 'link.csv'));
  return path;
}

describe('hostile outputs: a report, --out or journal that is the catalog being read is refused', () => {
  const validateCases: [string, (dir: string) => string[], string][] = [
    ['--out on the catalog', () => ['catalog.csv', '--out', 'catalog.csv'], '--out file catalog.csv is the catalog catalog.csv'],
    ['--report on the catalog', () => ['catalog.csv', '--report', 'catalog.csv'], 'report catalog.csv is the catalog catalog.csv'],
    ['--report through a link', () => ['catalog.csv', '--report', 'link.csv'], 'report link.csv is the catalog catalog.csv'],
    ['--out on a file:// catalog', (dir) => [pathToFileURL(join(dir, 'catalog.csv')).href, '--out', './catalog.csv'], '--out file ./catalog.csv is the catalog file://'],
    ['--report on the second catalog', () => ['other.csv', 'catalog.csv', '--report', 'catalog.csv'], 'report catalog.csv is the catalog catalog.csv'],
  ];
  it.each(validateCases)('validate %s: exit 2, the catalog untouched', async (_name, args, message) => {
    const dir = tempDir();
    const catalog = catalogIn(dir);
    writeFileSync(join(dir, 'other.csv'), 'sku,title\nB1,Bowl\n');
    const result = await runCli(['validate', ...args(dir), '--marketplace', 'ebay', '--shape', 'wrapped'], { cwd: dir });
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/internal error|\n {4}at /);
    expect(result.code).toBe(2);
    expect(readFileSync(catalog, 'utf8')).toBe(CATALOG);
  });

  it('publish --report over the catalog (through a link): exit 2 before anything is sent, the catalog untouched', async () => {
    const sandbox = await startSandboxProcess([]);
    try {
      const dir = tempDir();
      const catalog = writeCatalog(dir, 3);
      const before = readFileSync(catalog, 'utf8');
      symlinkSync(catalog, join(dir, 'link.csv'));
      const result = await runCli(['publish', catalog, '--base-url', sandbox.url, '--report', join(dir, 'link.csv'), '--no-journal'], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(result.stderr).toContain('is the catalog');
      expect(result.code).toBe(2);
      expect(readFileSync(catalog, 'utf8')).toBe(before);
      expect((await sandbox.stats()).requests).toBe(0);
    } finally {
      await sandbox.stop();
    }
  });

  it('publish --journal on the catalog: exit 2 before anything is sent, the catalog untouched', async () => {
    const sandbox = await startSandboxProcess([]);
    try {
      const dir = tempDir();
      const catalog = writeCatalog(dir, 3);
      const before = readFileSync(catalog, 'utf8');
      const result = await runCli(['publish', 'catalog.csv', '--base-url', sandbox.url, '--journal', 'catalog.csv'], { cwd: dir, env: publishEnv(sandbox.url) });
      expect(result.stderr).toContain('journal catalog.csv is the catalog catalog.csv');
      expect(result.code).toBe(2);
      expect(readFileSync(catalog, 'utf8')).toBe(before);
    } finally {
      await sandbox.stop();
    }
  });
});
