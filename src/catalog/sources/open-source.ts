import { UsageError } from '../../errors.js';
import { registerSecret } from '../../secrets.js';
import { urlSecrets } from '../../secret-url.js';
import type { CatalogOptions } from '../types.js';
import { fileSource } from './file.js';
import { httpSource } from './http.js';
import { kafkaTopicSource } from './kafka-topic.js';
import { s3Source } from './s3.js';
import { schemeOf, type SourceKind } from './source-kind.js';
import { stdinSource } from './stdin.js';
import type { OpenedSource } from './types.js';

/**
 * The kinds of source, asked in this order. `-` goes before the file kind, which takes any name without a scheme.
 * Each kind loads what it needs (undici, the AWS SDK) only when it opens a source.
 */
export const SOURCE_KINDS: readonly SourceKind[] = [stdinSource, httpSource, s3Source, fileSource, kafkaTopicSource];

/** Opens a source with the first kind that takes its name, its credentials registered as secrets; a scheme no kind takes is a UsageError listing the forms. */
export async function openSource(source: string, options: CatalogOptions): Promise<OpenedSource> {
  // Its password and tokens, bare, are masked wherever they are echoed (a service's message, a store's error).
  for (const secret of urlSecrets(source)) registerSecret(secret);
  const kind = SOURCE_KINDS.find((candidate) => candidate.match(source));
  if (kind !== undefined) return kind.open(source, options);
  const forms = new Intl.ListFormat('en', { type: 'disjunction' }).format(SOURCE_KINDS.map((each) => each.forms));
  throw new UsageError(`cannot read ${schemeOf(source) ?? source}:// sources; use ${forms}`);
}
