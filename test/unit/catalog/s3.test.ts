import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { openRecords } from '../../../src/catalog/read-records.js';
import { openS3 } from '../../../src/catalog/sources/s3.js';
import { SourceError } from '../../../src/errors.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { brief, collect, drainUntilError } from '../../helpers/sources-collect.js';

let server: S3TestServer;
const sizes = new Map<string, number>();

async function put(client: S3Client, key: string, body: string | Buffer, extra: { ContentEncoding?: string } = {}): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: 'catalogs', Key: key, Body: body, ContentLength: Buffer.byteLength(body), ...extra }));
  sizes.set(key, Buffer.byteLength(body));
}

beforeAll(async () => {
  server = await startS3Server(['catalogs', 'empty']);
  // The standard credential chain, fed from the environment only: nothing from this machine's ~/.aws.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: server.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  delete process.env.AWS_REGION;
  delete process.env.AWS_DEFAULT_REGION;
  delete process.env.AWS_PROFILE;
  const client = new S3Client({ endpoint: server.endpoint, forcePathStyle: true, region: 'us-east-1' });
  await put(client, 'one/catalog.csv', 'sku,title\nA,Alpha\n');
  await put(client, 'one/catalog.csv.gz', gzipSync('sku,title\nZ,Zipped\n'));
  // Written out of key order; read in key order, each with its own header.
  await put(client, 'parts/part-0002.csv', 'sku,title\nC,Gamma\n');
  await put(client, 'parts/part-0001.csv', 'sku;title\nA;Alpha\nB;Beta\n');
  await put(client, 'parts/sub/part-0003.csv.gz', gzipSync('sku,title\nD,Delta\n'), { ContentEncoding: 'gzip' });
  await put(client, 'parts/_SUCCESS', '');
  await put(client, 'mixed/a.csv', 'sku\nA\n');
  await put(client, 'mixed/b.json', '[{"sku":"B"}]');
  client.destroy();
}, 60_000);

afterAll(async () => {
  await server.close();
});

describe('s3 sources', () => {
  it('reads one object by key, with its size as the total', async () => {
    const stream = await openRecords('s3://catalogs/one/catalog.csv', { s3Endpoint: server.endpoint });
    expect(stream).toMatchObject({ name: 's3://catalogs/one/catalog.csv', format: 'csv' });
    const items = await collect(stream.records);
    expect(items).toEqual([{ location: { source: 's3://catalogs/one/catalog.csv', line: 2 }, fields: { sku: 'A', title: 'Alpha' } }]);
    expect(stream.progress()).toEqual({ bytesRead: sizes.get('one/catalog.csv'), totalBytes: sizes.get('one/catalog.csv') });
  });

  it('decompresses a gzip object', async () => {
    const stream = await openRecords('s3://catalogs/one/catalog.csv.gz', { s3Endpoint: server.endpoint });
    expect(brief(await collect(stream.records))).toEqual([[2, { sku: 'Z', title: 'Zipped' }]]);
  });

  it('reads every object under a prefix in key order as one catalog, each located by its own key', async () => {
    const stream = await openRecords('s3://catalogs/parts/', { s3Endpoint: server.endpoint });
    expect(stream).toMatchObject({ name: 's3://catalogs/parts/', format: 'csv' });
    const total = ['parts/part-0001.csv', 'parts/part-0002.csv', 'parts/sub/part-0003.csv.gz'].reduce((sum, key) => sum + sizes.get(key)!, 0);
    expect(stream.progress()).toMatchObject({ totalBytes: total });
    const items = await collect(stream.records);
    expect(items.map((item) => [item.location.source, item.location.line, 'fields' in item ? item.fields.sku : item.error])).toEqual([
      ['s3://catalogs/parts/part-0001.csv', 2, 'A'],
      ['s3://catalogs/parts/part-0001.csv', 3, 'B'],
      ['s3://catalogs/parts/part-0002.csv', 2, 'C'],
      ['s3://catalogs/parts/sub/part-0003.csv.gz', 2, 'D'],
    ]);
    expect(stream.progress()).toEqual({ bytesRead: total, totalBytes: total });
  });

  it('takes the endpoint from AWS_ENDPOINT_URL_S3', async () => {
    process.env.AWS_ENDPOINT_URL_S3 = server.endpoint;
    try {
      const stream = await openRecords('s3://catalogs/one/catalog.csv', {});
      expect(brief(await collect(stream.records))).toEqual([[2, { sku: 'A', title: 'Alpha' }]]);
    } finally {
      delete process.env.AWS_ENDPOINT_URL_S3;
    }
  });

  it('throws SourceError naming a missing object, a missing bucket and an empty prefix', async () => {
    const options = { s3Endpoint: server.endpoint };
    await expect(openRecords('s3://catalogs/one/missing.csv', options)).rejects.toThrow(new SourceError({ source: 's3://catalogs/one/missing.csv' }, 'no such object (HTTP 404)'));
    await expect(openRecords('s3://nobucket/c.csv', options)).rejects.toThrow('s3://nobucket/c.csv: no such bucket (HTTP 404)');
    await expect(openRecords('s3://empty/', options)).rejects.toThrow('s3://empty/: no objects under this prefix');
    await expect(openRecords('s3://catalogs/nothing-here/', options)).rejects.toThrow(SourceError);
  });

  it('throws SourceError when the objects under a prefix are not all of one format', async () => {
    const stream = await openRecords('s3://catalogs/mixed/', { s3Endpoint: server.endpoint });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const item of stream.records) seen.push(item.location.source);
      })(),
    ).rejects.toThrow("s3://catalogs/mixed/b.json: is json, but the catalog's first object is csv");
    expect(seen).toEqual(['s3://catalogs/mixed/a.csv']);
  });

  it('throws SourceError when the store rejects the credentials', async () => {
    // s3rver checks the access key id (it does not verify SigV4 signatures).
    process.env.AWS_ACCESS_KEY_ID = 'UNKNOWNKEY';
    try {
      await expect(openRecords('s3://catalogs/one/catalog.csv', { s3Endpoint: server.endpoint })).rejects.toThrow(
        's3://catalogs/one/catalog.csv: the AWS access key is not known to the store (HTTP 403)',
      );
    } finally {
      process.env.AWS_ACCESS_KEY_ID = server.accessKeyId;
    }
  });

  // Before: an object whose body trickled a byte every 50 ms was never idle for the SDK's 60 s socket timeout: read for ever.
  it('an object whose body trickles slower than 1 KiB a window while the reader waits fails, naming the store as slow', async () => {
    const trickler = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.write('sku,title\nA,Alpha\n');
      const timer = setInterval(() => response.write('B'), 50);
      response.once('close', () => clearInterval(timer));
    });
    trickler.listen(0, '127.0.0.1');
    await once(trickler, 'listening');
    try {
      const started = Date.now();
      const opened = await openS3('s3://catalogs/slow.csv', { s3Endpoint: `http://127.0.0.1:${(trickler.address() as AddressInfo).port}`, idleTimeoutMs: 400 });
      const { read, error: failure } = await drainUntilError(opened.first.stream as AsyncIterable<Buffer>);
      expect(failure?.message).toBe('the server sent less than 1024 bytes in 0.4 s');
      expect(read).toBeGreaterThan(10);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      trickler.closeAllConnections();
      trickler.close();
    }
  });
});
