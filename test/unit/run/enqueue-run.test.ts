import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runEnqueueSpec, UsageError, type ListingDefaults } from '../../../src/index.js';
import { wordError } from '../../../src/cli/report-error.js';
import { hasKcat, NO_KCAT, startKafkaMock, type KafkaMock } from '../../helpers/kafka-mock.js';
import { csvRow, readCsvReport, writeCatalog } from '../../helpers/publish.js';
import { rejection } from '../../helpers/errors.js';
import { tempDir } from '../../helpers/tmp.js';

const FLAT: ListingDefaults = { shape: 'flat', saved_defaults: false };
const kcat = hasKcat();
if (!kcat) console.log(NO_KCAT);

describe('runEnqueueSpec: what listings enqueue runs, from the library', () => {
  it('refuses a topic that is not kafka:// and an HTML report, naming the setting (the CLI words it as its flag)', async () => {
    const catalog = writeCatalog(tempDir(), 1);
    const spec = { source: { sources: [catalog], catalog: {} }, target: { defaults: FLAT } };
    const topic = await rejection(UsageError, runEnqueueSpec({ ...spec, topic: 'products' }));
    expect(topic.message).toMatch(/is not a Kafka topic/);
    const html = await rejection(UsageError, runEnqueueSpec({ ...spec, topic: 'kafka://127.0.0.1:9/products', outputs: { reports: ['run.html'] } }));
    expect(html.message).toBe('report run.html: the HTML report is of publish runs; enqueue writes .csv, .json, .ndjson or .xml');
    expect(wordError(html).message).toBe('--report run.html: the HTML report is of publish runs; enqueue writes .csv, .json, .ndjson or .xml');
  });

  describe.skipIf(!kcat)('to a Kafka-protocol cluster (kcat mock)', () => {
    let mock: KafkaMock;
    beforeAll(async () => {
      mock = await startKafkaMock(1);
    });
    afterAll(async () => {
      await mock?.stop();
    });

    it('produces the valid rows, reports every row once, and gives the verdict the CLI gives (1: a row invalid)', async () => {
      const dir = tempDir();
      const catalog = writeCatalog(dir, 3, 'catalog.csv', (i) => (i === 1 ? csvRow(i).replace(/https:\/\/images[^,]*/, 'not-a-url') : csvRow(i)));
      const report = join(dir, 'run.csv');
      const seen: string[] = [];
      const result = await runEnqueueSpec(
        { source: { sources: [catalog], catalog: {} }, topic: `kafka://${mock.bootstrap}/library-enqueue`, target: { defaults: FLAT }, outputs: { reports: [report] } },
        { onOutcome: (outcome) => seen.push(outcome.outcome) },
      );
      expect(seen).toEqual(['enqueued', 'invalid', 'enqueued']);
      expect(result.summary).toMatchObject({ rows: 3, enqueued: 2, invalid: 1, report: [report], batches: 1 });
      expect(result.verdict.exitCode).toBe(1);
      expect(result.rowErrors.map((outcome) => outcome.outcome)).toEqual(['invalid']);
      expect(readCsvReport(report).map((row) => row.outcome)).toEqual(['enqueued', 'invalid', 'enqueued']);
    }, 60_000);
  });
});
