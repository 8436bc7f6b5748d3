import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingsTable } from '../../helpers/readme-tables.js';

describe('README', () => {
  it('carries the settings table generated from the options table', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(settingsTable());
  });
});

describe('docs/SECURITY.md, docs/RELIABILITY.md and docs/ARCHITECTURE.md', () => {
  it('name only proofs and modules that exist (a renamed test or module fails here, not in a reader\'s hands)', () => {
    for (const page of ['SECURITY.md', 'RELIABILITY.md', 'ARCHITECTURE.md']) {
      const text = readFileSync(new URL(`../../../docs/${page}`, import.meta.url), 'utf8');
      const named = [...new Set([...text.matchAll(/\b(?:test|src)\/[\w./-]+\.ts\b/g)].map((match) => match[0]))];
      expect(named.length, page).toBeGreaterThan(5);
      const missing = named.filter((path) => !existsSync(new URL(`../../../${path}`, import.meta.url)));
      expect(missing, page).toEqual([]);
    }
  });
});
