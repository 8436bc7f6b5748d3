import { once } from 'node:events';
import { ConfigError, libraryName, type NameSetting } from '../errors.js';
import { openOutput } from '../fs/output-target.js';
import { stringifyJson } from '../json-number.js';

/** Where a validation writes the request body of each valid row, one JSON a line (NDJSON), with back-pressure. */
export interface RequestsOut {
  write(value: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the requests file of a validation (`requestsOut`), before anything is read so that a bad path fails first.
 * A file that cannot be opened or written is a ConfigError naming the setting as `name` words it.
 */
export async function openRequestsOut(path: string, name: NameSetting = libraryName): Promise<RequestsOut> {
  const setting = { key: 'requestsOut', value: path };
  const fail = (error: Error) => new ConfigError((named) => `${named('requestsOut')} ${path}: cannot write it (${(error as NodeJS.ErrnoException).code ?? error.message})`, { setting });
  let handle;
  try {
    handle = await openOutput(path, { role: `${name('requestsOut')} file`, truncate: true });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw fail(error as Error);
  }
  const stream = handle.createWriteStream();
  let failure: Error | undefined;
  stream.on('error', (error) => (failure = error));
  return {
    async write(value: unknown): Promise<void> {
      if (failure) throw fail(failure);
      if (!stream.write(`${stringifyJson(value)}\n`)) await once(stream, 'drain');
    },
    async close(): Promise<void> {
      stream.end();
      if (!stream.writableFinished && !failure) await once(stream, 'finish');
      if (failure) throw fail(failure);
    },
  };
}
