import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { SourceError } from '../../errors.js';
import { printable } from '../../printable.js';
import { redact, registerSecret } from '../../secrets.js';
import { redactSourceName } from '../../secret-url.js';
import { createS3Client, loadS3Sdk, s3Endpoint, type S3Sdk } from './s3-client.js';
import { metered } from './meter-stream.js';
import { failSlowBody } from './slow-body.js';
import { answerLimitOf } from './s3-answer-limit.js';
import { unsendableCredential } from './s3-credentials.js';
import { parseS3Url, s3Name, type S3Location } from './s3-url.js';
import { schemeOf, type SourceKind } from './source-kind.js';
import { Meter, type ByteSource, type OpenedSource } from './types.js';
import { count } from '../../number-text.js';

/** Options of the S3 source. */
export interface S3SourceOptions {
  s3Endpoint?: string;
  signal?: AbortSignal;
  /** The window in which an object's body must bring 1 KiB while the reader waits (60 s; shorter in tests). */
  idleTimeoutMs?: number;
}

const IDLE_TIMEOUT_MS = 60_000;

const REASONS: Readonly<Record<string, string>> = {
  NoSuchKey: 'no such object',
  NotFound: 'no such object',
  NoSuchBucket: 'no such bucket',
  AccessDenied: 'access denied',
  InvalidAccessKeyId: 'the AWS access key is not known to the store',
  SignatureDoesNotMatch: 'the AWS secret key does not match the access key',
  CredentialsProviderError: 'no AWS credentials found',
};

/** The most of a store's own message shown: it is the store's text, and may be a page long. */
const MAX_STORE_MESSAGE = 300;

/** The store's message, on one line, escaped and cut short: redacted before the cut, which would hide a secret's end. */
function storeMessage(message: string): string {
  const flat = printable(redact(message).replace(/\s+/g, ' ').trim(), { lines: false });
  return flat.length > MAX_STORE_MESSAGE ? `${flat.slice(0, MAX_STORE_MESSAGE - 1)}…` : flat;
}

/**
 * The credentials the SDK resolved (from the environment, a profile, SSO or a role) are secrets: registered, so that
 * a store that echoes what it was sent (the session token is sent with every request) never gets them shown. Only
 * called once the store has answered, when the SDK holds them resolved.
 */
async function registerCredentials(client: S3Client): Promise<void> {
  try {
    const credentials = await client.config.credentials();
    registerSecret(credentials.secretAccessKey);
    registerSecret(credentials.sessionToken);
  } catch {
    // none: nothing to hide
  }
}

async function s3FailureOf(client: S3Client, name: string, error: unknown): Promise<Error> {
  if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== undefined) await registerCredentials(client);
  return s3Failure(name, error);
}

function s3Failure(name: string, error: unknown): Error {
  if (error instanceof Error && error.name === 'AbortError') return error;
  const cut = answerLimitOf(error);
  if (cut !== undefined) return new SourceError({ source: name }, cut.reason, { cause: error });
  const err = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = err.$metadata?.httpStatusCode;
  const known = REASONS[err.name ?? ''];
  const hint = err.name === 'CredentialsProviderError' ? 'set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY' : undefined;
  if (status !== undefined && status >= 300 && status < 400) {
    return new SourceError({ source: name }, `the store answered a redirect (HTTP ${status}), which is not followed`, {
      cause: error,
      hint: 'check the endpoint and the region of the bucket (AWS_REGION)',
    });
  }
  // The SDK could not parse the answer; its message then ends in a note for developers about a hidden field.
  const unreadable = (err.message ?? '').indexOf(' Deserialization error');
  if (status !== undefined && unreadable >= 0) {
    const what = storeMessage(`${err.name ?? 'Error'}: ${(err.message ?? '').slice(0, unreadable)}`);
    return new SourceError({ source: name }, `the store's answer (HTTP ${status}) is not one the AWS SDK can read: ${what}`, { cause: error });
  }
  let reason: string;
  if (known !== undefined) reason = status === undefined ? known : `${known} (HTTP ${status})`;
  else if (status === undefined) reason = `cannot reach the store: ${storeMessage(err.message ?? String(error))}`;
  else reason = `${storeMessage(err.name ?? 'error')} (HTTP ${status}): ${storeMessage(err.message ?? '')}`;
  return new SourceError({ source: name }, reason, { cause: error, hint });
}

/**
 * The most objects a prefix may hold. Every key is kept (to read them in order), so a store that pages on without
 * end, or hands back the same continuation token, must not hold the run in a loop that fills memory.
 */
export const MAX_PREFIX_OBJECTS = 100_000;
/** The most pages of a listing read (S3 gives up to 1,000 keys a page): a store paging empty pages must stop too. */
const MAX_PREFIX_PAGES = 10_000;
/** S3's own limit on an object's size. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 4;
/** S3's own limit on a key: a store listing longer ones would have every one kept, up to 16 MiB each. */
const MAX_KEY_BYTES = 1024;
/** A continuation token is a few hundred bytes; each is kept, to see one come back. */
const MAX_TOKEN_BYTES = 4096;

interface Listed {
  key: string;
  size: number;
}

/** Every object under a prefix, in S3's key order (UTF-8 bytes), without folder markers and empty objects. */
async function listPrefix(client: S3Client, sdk: S3Sdk, where: S3Location, name: string, signal?: AbortSignal): Promise<Listed[]> {
  const objects: Listed[] = [];
  let token: string | undefined;
  let listed = 0;
  let pages = 0;
  const tokens = new Set<string>();
  do {
    let page;
    try {
      page = await client.send(
        new sdk.ListObjectsV2Command({ Bucket: where.bucket, Prefix: where.key, ...(token === undefined ? {} : { ContinuationToken: token }) }),
        signal === undefined ? {} : { abortSignal: signal },
      );
    } catch (error) {
      throw await s3FailureOf(client, name, error);
    }
    const contents = page.Contents ?? [];
    listed += contents.length;
    pages++;
    const nextToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    if (nextToken !== undefined && Buffer.byteLength(nextToken) > MAX_TOKEN_BYTES) {
      throw new SourceError({ source: name }, `the store's continuation token is longer than ${count(MAX_TOKEN_BYTES)} bytes`);
    }
    if (listed > MAX_PREFIX_OBJECTS || pages > MAX_PREFIX_PAGES || (nextToken !== undefined && tokens.has(nextToken))) {
      throw new SourceError({ source: name }, `the store lists more than ${count(MAX_PREFIX_OBJECTS)} objects under this prefix (or pages without end): name a longer prefix`);
    }
    for (const object of contents) {
      const key = object.Key;
      if (key !== undefined && Buffer.byteLength(key) > MAX_KEY_BYTES) {
        throw new SourceError({ source: name }, `the store listed a key longer than ${count(MAX_KEY_BYTES)} bytes, which S3 does not allow`);
      }
      if (key === undefined || key.endsWith('/') || object.Size === 0) continue;
      objects.push({ key, size: object.Size ?? Number.NaN });
    }
    token = nextToken;
    if (token !== undefined) tokens.add(token);
  } while (token !== undefined);
  return objects.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
}

async function getObject(client: S3Client, sdk: S3Sdk, bucket: string, key: string, meter: Meter, idleTimeoutMs: number, signal?: AbortSignal): Promise<{ part: ByteSource; length: number | undefined }> {
  const name = s3Name(bucket, key);
  let answer;
  try {
    answer = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }), signal === undefined ? {} : { abortSignal: signal });
  } catch (error) {
    throw await s3FailureOf(client, name, error);
  }
  const body = answer.Body;
  if (!(body instanceof Readable)) throw new SourceError({ source: name }, 'the object has no readable body');
  return {
    part: {
      name,
      path: key,
      stream: metered(failSlowBody(body, idleTimeoutMs), meter, signal),
      ...(answer.ContentType === undefined ? {} : { contentType: answer.ContentType }),
      ...(answer.ContentEncoding === undefined ? {} : { contentEncoding: answer.ContentEncoding }),
    },
    length: answer.ContentLength,
  };
}

/**
 * Opens `s3://bucket/key` (one object) or `s3://bucket/prefix/` (every object under the prefix, in key order, read one
 * after the other). The first object is opened now, so an unreadable source fails at once; the totals come from the
 * object sizes.
 */
export async function openS3(source: string, options: S3SourceOptions): Promise<OpenedSource> {
  const where = parseS3Url(source);
  const sdk = await loadS3Sdk();
  const client = await createS3Client(sdk, s3Endpoint(options.s3Endpoint));
  const signal = options.signal;
  const idle = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const meter = new Meter();
  try {
    const unsendable = await unsendableCredential(client);
    if (unsendable !== undefined) {
      throw new SourceError({ source: redactSourceName(source) }, `${unsendable} holds a character that cannot be sent in a header (a line break?)`);
    }
    if (!where.prefix) {
      const { part, length } = await getObject(client, sdk, where.bucket, where.key, meter, idle, signal);
      meter.totalBytes = length;
      part.stream.once('close', () => client.destroy());
      return { first: part, meter };
    }
    const objects = await listPrefix(client, sdk, where, redactSourceName(source), signal);
    if (objects.length === 0) throw new SourceError({ source: redactSourceName(source) }, 'no objects under this prefix');
    // A store's size that is no whole number of bytes up to S3's 5 TiB leaves the total unknown, not NaN or 1e308.
    const total = objects.reduce((sum, object) => sum + object.size, 0);
    meter.totalBytes = objects.every((object) => Number.isSafeInteger(object.size) && object.size > 0 && object.size <= MAX_OBJECT_BYTES) ? total : undefined;
    let index = 0;
    const first = (await getObject(client, sdk, where.bucket, objects[0]!.key, meter, idle, signal)).part;
    const next = async (): Promise<ByteSource | undefined> => {
      index++;
      const object = objects[index];
      if (object === undefined) return undefined;
      return (await getObject(client, sdk, where.bucket, object.key, meter, idle, signal)).part;
    };
    return { first, next, close: () => client.destroy(), meter };
  } catch (error) {
    client.destroy();
    throw error;
  }
}

/** An S3 object or prefix. Only opening one loads the AWS SDK. */
export const s3Source: SourceKind = {
  name: 's3',
  forms: 's3://…',
  match: (source) => schemeOf(source) === 's3',
  open: (source, { s3Endpoint: endpoint, signal }) =>
    openS3(source, { ...(endpoint === undefined ? {} : { s3Endpoint: endpoint }), ...(signal === undefined ? {} : { signal }) }),
};
