import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { Meter } from './types.js';

class Counter extends Transform {
  readonly #meter: Meter;
  constructor(meter: Meter) {
    super();
    this.#meter = meter;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#meter.bytesRead += chunk.length;
    callback(null, chunk);
  }
}

function noop(): void {}

/** The stream's bytes, counted into the meter as they pass; an abort signal ends the stream with an AbortError. */
export function metered(stream: Readable, meter: Meter, signal?: AbortSignal): Readable {
  const counted = pipeline(stream, new Counter(meter), noop);
  if (signal !== undefined) {
    const abort = (): void => {
      counted.destroy(signal.reason instanceof Error ? signal.reason : new DOMException('The read was aborted', 'AbortError'));
    };
    if (signal.aborted) abort();
    else {
      signal.addEventListener('abort', abort, { once: true });
      counted.once('close', () => signal.removeEventListener('abort', abort));
    }
  }
  return counted;
}
