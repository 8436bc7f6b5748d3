import { out } from '../output.js';

/**
 * The most of the printed callbacks waiting for stdout's reader before the next ones are dropped (counted), rather
 * than held in memory: a few hundred callbacks' worth.
 */
export const MAX_UNREAD_OUTPUT_BYTES = 1024 * 1024;

/** How long a stop waits for stdout's reader to take the last lines. */
export const OUTPUT_CLOSE_WAIT_MS = 2_000;

/** `N lines not shown: the output was not read`. */
export const notShownText = (lines: number): string => `${lines} ${lines === 1 ? 'line' : 'lines'} not shown: the output was not read`;

/**
 * The callbacks as printed for a person, on stdout. A terminal nobody reads (Ctrl-S, a frozen SSH session) is
 * written synchronously on Linux and stopped the whole listener, every connection unanswered; a pipe whose reader
 * stalls (`| less`, a stuck program) held every line in memory. So the terminal is written asynchronously, and a
 * callback's lines are dropped whole while {@link MAX_UNREAD_OUTPUT_BYTES} wait: a notice says how many once the
 * reader takes lines again. Receiving, answering, recording and forwarding never wait for the output.
 */
export class CallbackScreen {
  private unnoticed = 0;
  /** Lines dropped in all. */
  dropped = 0;

  constructor(private readonly stream: NodeJS.WriteStream = process.stdout) {
    // Node makes a terminal's writes blocking (no public way back): libuv reopened the terminal for this stream
    // alone, so stderr's writes are untouched.
    if (stream.isTTY) (stream as unknown as { _handle?: { setBlocking?: (blocking: boolean) => unknown } })._handle?.setBlocking?.(false);
  }

  /** Print one callback's lines, or drop them all while the reader is behind. */
  show(lines: string[]): void {
    if (this.stream.writableLength > MAX_UNREAD_OUTPUT_BYTES) {
      this.unnoticed += lines.length;
      this.dropped += lines.length;
      return;
    }
    if (this.unnoticed > 0) out(notShownText(this.unnoticed));
    this.unnoticed = 0;
    for (const line of lines) out(line);
  }

  /** Wait at most {@link OUTPUT_CLOSE_WAIT_MS} for the reader to take what is written; false when it did not. */
  async flushed(): Promise<boolean> {
    // 'drain' follows only a write past the stream's high-water mark: the bytes waiting are watched instead.
    for (const started = Date.now(); this.stream.writableLength > 0; ) {
      if (Date.now() - started >= OUTPUT_CLOSE_WAIT_MS) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return true;
  }
}
