import type { EngineObserver } from '../publish/engine-types.js';
import { startAdminServer, workerReadiness } from './admin-server.js';
import type { StreamStats } from './stream-types.js';
import { createWorkerMetrics } from './worker-metrics.js';
import type { AdminAddress } from './admin-address.js';

/** A worker's admin endpoint: its URL, the observer its latency histogram needs, and how to close it. */
export interface WorkerAdmin {
  readonly url: string;
  readonly observe: EngineObserver;
  close(): Promise<void>;
}

/**
 * Starts `/healthz`, `/readyz` and `/metrics` for a stream worker whose stats `stats` reads (undefined before the
 * stream is made: not ready). Opened before the stream, so that a port in use fails before anything is consumed.
 */
export async function openWorkerAdmin(address: AdminAddress, stats: () => StreamStats | undefined): Promise<WorkerAdmin> {
  const readiness = (): ReturnType<typeof workerReadiness> => {
    const now = stats();
    return now === undefined ? { ready: false, why: 'starting' } : workerReadiness(now);
  };
  const metrics = await createWorkerMetrics(stats, () => readiness().ready);
  const server = await startAdminServer({ ...address, metrics, readiness });
  return { url: server.url, observe: metrics.observe, close: () => server.close() };
}
