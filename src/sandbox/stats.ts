import type { SandboxStats } from './types.js';

const NO_PEAKS = { peakInFlight: 0, peakQueued: 0 };

/** The counters behind `GET /_sandbox/stats`. */
export class StatsCounter {
  requests = 0;
  replayed = 0;
  duplicates = 0;
  dropped = 0;
  throttled = 0;
  overloaded = 0;
  /** `marketplace NUL sku` of every listing created: one SKU may be listed on several marketplaces. */
  private readonly listings = new Set<string>();
  private readonly byStatus = new Map<number, number>();

  answered(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  /** A listing was created (not a replay): a second creation of the same SKU on the same marketplace is a duplicate. */
  created(marketplace: string, sku: string): void {
    const key = `${marketplace}\u0000${sku}`;
    if (this.listings.has(key)) this.duplicates++;
    else this.listings.add(key);
  }

  /** The counts; the peaks come from the admission. */
  snapshot(peaks: { peakInFlight: number; peakQueued: number } = NO_PEAKS): SandboxStats {
    const byStatus: Record<string, number> = {};
    for (const [status, count] of [...this.byStatus].sort((a, b) => a[0] - b[0])) byStatus[String(status)] = count;
    return {
      requests: this.requests,
      created: this.listings.size,
      replayed: this.replayed,
      duplicates: this.duplicates,
      dropped: this.dropped,
      throttled: this.throttled,
      overloaded: this.overloaded,
      peak_in_flight: peaks.peakInFlight,
      peak_queued: peaks.peakQueued,
      by_status: byStatus,
    };
  }
}
