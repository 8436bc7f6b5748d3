import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Open a file the tool reads back (its config, a mapping, a journal, a state, a lock, a retry report) without
 * waiting: opening a FIFO to read blocks until something opens it to write, which a planted one never does, and the
 * blocked open holds a thread of the pool and a process that waits on it (even for the clean stop a SIGTERM asks
 * for). `fifo` says whether it is one, told by the handle itself (no race with the path being swapped); the caller
 * decides what a FIFO means to it, and closes the handle. Anything else reads as with a plain open.
 */
export async function openToRead(path: string): Promise<{ handle: FileHandle; fifo: boolean }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return { handle, fifo: (await handle.stat()).isFIFO() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The error of a file that must be a file and is a FIFO: its message is the reason, to follow `cannot read X: `. */
export class FifoError extends Error {
  constructor() {
    super('it is a FIFO (a named pipe), not a file: nothing would ever be read from it');
    this.name = 'FifoError';
  }
}
