import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

function removeAll(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// Registered when a test file first imports this module, so it runs after that file's tests.
afterAll(removeAll);
process.once('exit', removeAll);

/** A fresh temporary directory, removed after the test file has run. */
export function tempDir(prefix = 'listings-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
