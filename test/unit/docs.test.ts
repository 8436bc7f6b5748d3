import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingsTable } from '../../src/config/docs.js';

describe('README', () => {
  it('carries the settings table generated from the options table', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(settingsTable());
  });
});
