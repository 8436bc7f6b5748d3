import type * as S3 from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { limitHeldAnswers } from './s3-answer-limit.js';

/** The endpoint of an S3-compatible store: the option, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL. */
export function s3Endpoint(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const value of [option, env.AWS_ENDPOINT_URL_S3, env.AWS_ENDPOINT_URL]) if (value !== undefined && value !== '') return value;
  return undefined;
}

/** The AWS SDK, loaded only now: nothing on the paths that read files, stdin or URLs pays for it. */
export type S3Sdk = typeof S3;

export async function loadS3Sdk(): Promise<S3Sdk> {
  // The SDK warns about Node 20 on stderr; that note is for developers, not for people running the tool.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return import('@aws-sdk/client-s3');
}

/**
 * An S3 client with the standard credential chain, region and profile (AWS_PROFILE, ~/.aws/config). With an
 * endpoint, addressing is path-style, as S3-compatible stores want. Without any configured region us-east-1 is used
 * and S3 redirects to the bucket's own region are followed.
 */
export async function createS3Client(sdk: S3Sdk, endpoint: string | undefined): Promise<S3Client> {
  const base = {
    followRegionRedirects: true,
    // Without these a stalled connection would wait forever.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
    ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
  };
  let client = new sdk.S3Client(base);
  try {
    await client.config.region();
  } catch {
    client.destroy();
    client = new sdk.S3Client({ ...base, region: 'us-east-1' });
  }
  limitHeldAnswers(client);
  return client;
}
