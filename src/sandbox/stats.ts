import type { SandboxStats } from './types.js';

/** The counters behind `GET /_sandbox/stats`. */
export class StatsCounter {
  requests = 0;
  replayed = 0;
  duplicates = 0;
  dropped = 0;
  rateLimited = 0;
  private readonly skus = new Set<string>();
  private readonly byStatus = new Map<number, number>();

  answered(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  /** A listing was created for this SKU (not a replay): a second creation of a SKU is a duplicate. */
  createdSku(sku: string): void {
    if (this.skus.has(sku)) this.duplicates++;
    else this.skus.add(sku);
  }

  snapshot(): SandboxStats {
    const byStatus: Record<string, number> = {};
    for (const [status, count] of [...this.byStatus].sort((a, b) => a[0] - b[0])) byStatus[String(status)] = count;
    return {
      requests: this.requests,
      created: this.skus.size,
      replayed: this.replayed,
      duplicates: this.duplicates,
      dropped: this.dropped,
      rate_limited: this.rateLimited,
      by_status: byStatus,
    };
  }
}
