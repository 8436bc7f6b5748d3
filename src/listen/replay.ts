import { Forwarder, type ForwardResult } from './forward.js';
import { readRecording, type RecordedCallback } from './recording.js';
import { replayable, type DroppedHeader } from './replayable.js';

/** One line of a recording: sent again (with the headers left out), or skipped and why. */
export type ReplayEvent =
  | {
      type: 'sent';
      /** The line of the recording. */
      line: number;
      record: RecordedCallback;
      result: ForwardResult;
      /** Recorded headers not sent: invalid, credentials, or of the connection. */
      dropped: DroppedHeader[];
    }
  | { type: 'skipped'; line: number; reason: string };

/** The counts of a replay. */
export interface ReplayStats {
  sent: number;
  /** Answered 2xx. */
  ok: number;
  failed: number;
  /** Lines not sent: not a recorded callback, or a method not replayed. */
  skipped: number;
}

/**
 * Send the callbacks of a recording to `url` again, one after the other in the order recorded, each with its
 * method, valid headers and exact body bytes. A line that cannot be sent is skipped and reported; a file that
 * cannot be read is a SourceError (what was before it was sent).
 */
export async function replayRecording(file: string, url: string, onEvent: (event: ReplayEvent) => void = () => undefined): Promise<ReplayStats> {
  const forwarder = new Forwarder(url);
  const stats: ReplayStats = { sent: 0, ok: 0, failed: 0, skipped: 0 };
  const skip = (line: number, reason: string): void => {
    stats.skipped++;
    onEvent({ type: 'skipped', line, reason });
  };
  try {
    for await (const item of readRecording(file)) {
      if ('error' in item) {
        skip(item.line, item.error);
        continue;
      }
      const replay = replayable(item.record);
      if ('skipped' in replay) {
        skip(item.line, replay.skipped);
        continue;
      }
      const result = await forwarder.send(replay.request);
      stats.sent++;
      if (result.ok) stats.ok++;
      else stats.failed++;
      onEvent({ type: 'sent', line: item.line, record: item.record, result, dropped: replay.dropped });
    }
  } finally {
    forwarder.close();
  }
  return stats;
}
