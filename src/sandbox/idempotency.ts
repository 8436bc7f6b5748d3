import { hash } from 'node:crypto';

/** A 48-bit digest of a body: enough to tell bodies apart under one key, small enough to keep a million. */
export function bodyDigest(body: Buffer | string): number {
  return Number.parseInt(hash('sha1', body, 'hex').slice(0, 12), 16);
}

/**
 * Idempotency-Key -> digest of the body of the listing it created. Only creations are stored (a rejected body
 * creates nothing), and the answer itself is not: it is derived from the body, so a replay recomputes it.
 * The oldest keys are forgotten beyond `capacity`, as a real service forgets them after a day.
 */
export class IdempotencyStore {
  private readonly digests = new Map<string, number>();

  constructor(private readonly capacity = 2_000_000) {}

  get(key: string): number | undefined {
    return this.digests.get(key);
  }

  set(key: string, digest: number): void {
    this.digests.set(key, digest);
    if (this.digests.size > this.capacity) {
      const oldest = this.digests.keys().next();
      if (!oldest.done) this.digests.delete(oldest.value);
    }
  }
}
