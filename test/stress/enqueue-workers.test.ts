import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueToWorkers } from '../helpers/enqueue-workers.js';
import { hasKcat, NO_KCAT, startKafkaMock, type KafkaMock } from '../helpers/kafka-mock.js';

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

// npm test runs the same scenario with 2,000 rows (test/e2e/enqueue-kafka.test.ts): 50,000 take minutes on a loaded machine.
describe.skipIf(!kcat)('listings enqueue of 50,000 rows, published by 3 listings stream workers of one group (kcat mock)', () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock(3);
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it('one worker killed with SIGKILL mid-run: every listing created exactly once; enqueued again, none created again', async () => {
    const figures = await enqueueToWorkers(mock, 'enqueue-50k', 50_000, 10_000, 300_000);
    expect(figures.listings).toBe(49_900);
    console.log(`enqueue 50,000 rows: ${figures.enqueueMs} ms; published by the workers in ${figures.publishMs} ms; ${figures.replayed} replayed after the kill`);
  }, 600_000);
});
