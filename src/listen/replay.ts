import { Forwarder, type ForwardResult } from './forward.js';
import { readRecording, recordedBody, type RecordedCallback } from './recording.js';

/** One recorded callback sent again. */
export interface ReplayEvent {
  /** The line of the recording. */
  line: number;
  record: RecordedCallback;
  result: ForwardResult;
}

/** The counts of a replay. */
export interface ReplayStats {
  sent: number;
  /** Answered 2xx. */
  ok: number;
  failed: number;
}

/**
 * Send the callbacks of a recording to `url` again, one after the other in the order recorded, each with its
 * method, headers and exact body bytes. A bad line of the recording is a SourceError (what was before it was sent).
 */
export async function replayRecording(file: string, url: string, onEvent: (event: ReplayEvent) => void = () => undefined): Promise<ReplayStats> {
  const forwarder = new Forwarder(url);
  const stats: ReplayStats = { sent: 0, ok: 0, failed: 0 };
  try {
    for await (const { line, record } of readRecording(file)) {
      const result = await forwarder.send({ method: record.method, headers: record.headers, body: recordedBody(record) });
      stats.sent++;
      if (result.ok) stats.ok++;
      else stats.failed++;
      onEvent({ line, record, result });
    }
  } finally {
    forwarder.close();
  }
  return stats;
}
