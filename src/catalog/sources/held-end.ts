import type { Socket } from 'node:net';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';

/**
 * undici 7 (up to 7.30 at least, nodejs/undici#5360) crashes the process with an uncatchable
 * `assert(!this.paused)` when a server closes its connection (FIN) while the body is held back by a reader slower
 * than the download, and all the body's bytes are already parsed: any server that sends `Connection: close` and
 * a catalog larger than a few buffers. Its parser, once paused, takes no more bytes; it reads the socket again only
 * after it resumed. So the socket's `end` is held while the last read gave bytes (the parser may have paused on
 * them), and given out once a read finds nothing left (the parser resumed and wants more).
 */
export function holdEndWhileParsing(socket: Socket): Socket {
  let lastReadGaveBytes = false;
  let held = false;
  const emit = socket.emit.bind(socket);
  const read = socket.read.bind(socket);
  socket.read = (size?: number): unknown => {
    const chunk: unknown = read(size);
    // Node's stream machinery reads 0 bytes to refill its buffer; the parser reads all there is.
    if (size === 0) return chunk;
    lastReadGaveBytes = chunk !== null;
    if (chunk === null && held) {
      held = false;
      setImmediate(() => emit('end'));
    }
    return chunk;
  };
  socket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event === 'end' && lastReadGaveBytes && !socket.destroyed) {
      held = true;
      return true;
    }
    return emit(event, ...args);
  }) as Socket['emit'];
  return socket;
}

/**
 * An undici Agent whose sockets' end is held as holdEndWhileParsing says. They are half-open: a socket that is not
 * would end its own side and close itself once the server's end came, held or not, and the paused parser, finding
 * it closed, would never read the rest.
 */
export function endHoldingAgent(undici: typeof Undici): Dispatcher {
  const connector = undici.buildConnector({ allowHalfOpen: true } as Undici.buildConnector.BuildOptions);
  return new undici.Agent({
    connect: (options, callback) =>
      connector(options, (...args) => {
        if (args[0] === null) holdEndWhileParsing(args[1]);
        callback(...args);
      }),
  });
}
