import { UsageError } from '../../errors.js';
import { redactSourceName } from '../../secret-url.js';

/** An `s3://bucket/key` source: one object, or with `prefix` every object under the key as a prefix. */
export interface S3Location {
  bucket: string;
  key: string;
  /** True for `s3://bucket/prefix/` (trailing slash) and `s3://bucket`: every object under `key`. */
  prefix: boolean;
}

/** Splits an s3:// URL by hand: keys are taken literally, never percent-decoded. */
export function parseS3Url(source: string): S3Location {
  const rest = source.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const key = slash < 0 ? '' : rest.slice(slash + 1);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new UsageError(`${redactSourceName(source)}: ${JSON.stringify(bucket)} is not an S3 bucket name; expected s3://bucket/key or s3://bucket/prefix/`);
  }
  return { bucket, key, prefix: key === '' || key.endsWith('/') };
}

/** `s3://bucket/key` of one object, as it is shown (a key that looks like a URL's query has its secrets masked). */
export function s3Name(bucket: string, key: string): string {
  return redactSourceName(`s3://${bucket}/${key}`);
}
