import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueToWorkers } from '../helpers/enqueue-workers.js';
import { hasKcat, NO_KCAT, startKafkaMock, type KafkaMock } from '../helpers/kafka-mock.js';

const kcat = hasKcat();
if (!kcat) console.warn(NO_KCAT);

// npm test runs the same path with 2,000 rows and one worker, no kill (test/e2e/enqueue-kafka.test.ts).
describe.skipIf(!kcat)('listings enqueue, published by 3 listings stream workers of one group (kcat mock), one killed', () => {
  let mock: KafkaMock;

  beforeAll(async () => {
    mock = await startKafkaMock(3);
  });

  afterAll(async () => {
    await mock?.stop();
  });

  it('2,000 rows, one of 3 workers killed with SIGKILL mid-run: every listing created exactly once; enqueued again, none created again', async () => {
    const figures = await enqueueToWorkers(mock, 'enqueue-2k', 2000, 600, 60_000);
    expect(figures.listings).toBe(1996);
    console.log(`enqueue 2,000 rows: ${figures.enqueueMs} ms; published by the workers in ${figures.publishMs} ms; ${figures.replayed} replayed after the kill`);
  }, 150_000);

  it('50,000 rows, one worker killed with SIGKILL mid-run: every listing created exactly once; enqueued again, none created again', async () => {
    const figures = await enqueueToWorkers(mock, 'enqueue-50k', 50_000, 10_000, 300_000);
    expect(figures.listings).toBe(49_900);
    console.log(`enqueue 50,000 rows: ${figures.enqueueMs} ms; published by the workers in ${figures.publishMs} ms; ${figures.replayed} replayed after the kill`);
  }, 600_000);
});
