import type { IncomingMessage } from 'node:http';

/**
 * Reads a request's body up to `maxBytes`: `done(body)` once it is whole, or `done(undefined)` as soon as it is
 * larger (the rest is not kept). A sender that goes away calls nothing: there is nobody to answer.
 */
export function readBoundedBody(req: IncomingMessage, maxBytes: number, done: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on('data', (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size <= maxBytes) {
      chunks.push(chunk);
      return;
    }
    tooLarge = true;
    done(undefined);
  });
  req.on('end', () => {
    if (!tooLarge) done(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size));
  });
  req.on('error', () => undefined);
}
