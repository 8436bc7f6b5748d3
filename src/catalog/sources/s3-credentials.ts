import type { S3Client } from '@aws-sdk/client-s3';

/** What an HTTP header may carry: a credential holding anything else (a line break pasted in) cannot be sent. */
const HEADER_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The credential, of those sent in headers, that cannot be sent, if any. Checked before the first request: Node
 * refuses the header only once a connection is open, and that connection then holds the process alive.
 */
export async function unsendableCredential(client: S3Client): Promise<string | undefined> {
  let credentials;
  try {
    credentials = await client.config.credentials();
  } catch {
    return undefined; // none resolved: the first request names that
  }
  if (!HEADER_SAFE.test(credentials.accessKeyId)) return 'the AWS access key id';
  if (credentials.sessionToken !== undefined && !HEADER_SAFE.test(credentials.sessionToken)) return 'the AWS session token';
  return undefined;
}
