import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startAdminServer } from '../../../src/stream/admin-server.js';
import { createWorkerMetrics } from '../../../src/stream/worker-metrics.js';

describe('the admin endpoint of stream --admin-listen', () => {
  it('cuts off a client that trickles its headers within its 10 s (+1 s), not at Node\'s 30 s check', async () => {
    const metrics = await createWorkerMetrics(() => undefined, () => true);
    const admin = await startAdminServer({ host: '127.0.0.1', port: 0, metrics, readiness: () => ({ ready: true, why: 'ok' }) });
    try {
      const { port } = new URL(admin.url);
      const started = Date.now();
      const answer = await new Promise<{ ms: number; text: string }>((resolve) => {
        let text = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
        // A header line every half second: never idle, never done.
        const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 500);
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(trickle);
          resolve({ ms: Date.now() - started, text });
        });
      });
      expect(answer.text).toMatch(/^HTTP\/1\.1 408/);
      expect(answer.ms).toBeGreaterThanOrEqual(9_500);
      expect(answer.ms).toBeLessThan(12_000);
    } finally {
      await admin.close();
    }
  }, 45_000);

  it('answers a request target in absolute form (RFC 9112 3.2.2) by its path, as in origin form', async () => {
    const metrics = await createWorkerMetrics(() => undefined, () => true);
    const admin = await startAdminServer({ host: '127.0.0.1', port: 0, metrics, readiness: () => ({ ready: true, why: 'ok' }) });
    try {
      const { port } = new URL(admin.url);
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(`GET http://127.0.0.1:${port}/healthz?probe=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer).toMatch(/\r\n\r\nok\n$/);
    } finally {
      await admin.close();
    }
  });
});
