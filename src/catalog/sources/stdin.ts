import { fstatSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { metered } from './meter-stream.js';
import type { SourceKind } from './source-kind.js';
import { Meter, type OpenedSource } from './types.js';

/** The name standard input goes by in locations and reports. */
export const STDIN_NAME = 'stdin';

/**
 * Standard input as a source (`-`). A terminal on stdin is a usage error: reading it would wait for typing, which is
 * never what a catalog command means.
 */
export function openStdin(input: Readable & { isTTY?: boolean } = process.stdin, signal?: AbortSignal): OpenedSource {
  if (input.isTTY === true) {
    throw new UsageError("'-' reads the catalog from standard input, but nothing is piped in", {
      hint: 'pipe a file in, e.g. `cat catalog.csv | listings validate -`, or name the file',
    });
  }
  // A directory on stdin (`< dir`) reads as nothing at all: said so, rather than as an empty catalog.
  if (input === process.stdin && stdinIsDirectory()) {
    throw new UsageError("'-' reads the catalog from standard input, but a directory is redirected to it", {
      hint: 'redirect a file, e.g. `listings validate - < catalog.csv`, or name the file',
    });
  }
  const meter = new Meter();
  const stream = metered(input, meter, signal);
  return { first: { name: STDIN_NAME, path: '', stream }, meter };
}

function stdinIsDirectory(): boolean {
  try {
    return fstatSync(0).isDirectory();
  } catch {
    return false;
  }
}

/** Standard input, named `-`. */
export const stdinSource: SourceKind = {
  name: 'stdin',
  forms: '-',
  match: (source) => source === '-',
  // A terminal on stdin is refused by a rejected promise, as every other kind refuses.
  open: (_source, options) => new Promise((resolve) => resolve(openStdin(process.stdin, options.signal))),
};
