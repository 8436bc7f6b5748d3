import { UsageError } from '../../errors.js';
import { redactSourceName } from '../../secret-url.js';
import { schemeOf, type SourceKind } from './source-kind.js';

/**
 * A Kafka topic is known only to be refused: it is a stream of changes, read by `listings stream`, not a catalog file
 * to read once from start to end. Without this kind, it would get the message for a scheme nothing reads.
 */
export const kafkaTopicSource: SourceKind = {
  name: 'kafka',
  forms: 'kafka://…/TOPIC (with listings stream)',
  match: (source) => schemeOf(source) === 'kafka',
  open: (source) =>
    Promise.reject(
      new UsageError(`${redactSourceName(source)} is a Kafka topic: a stream of changes, not a catalog file`, {
        hint: (name) => `publish from it with \`${name('streamListings')}\``,
      }),
    ),
};
