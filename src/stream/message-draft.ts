import type { Draft } from '../catalog/types.js';
import { createRecordMapper, type FieldMap } from '../catalog/mapping/index.js';
import { presetDrafts, type PresetName } from '../catalog/presets/index.js';
import type { Location } from '../errors.js';
import { JsonDepthError, JsonDuplicateKeyError, parseJsonRecord } from '../json-text.js';
import { describeJson, isJsonObject } from '../catalog/formats/json-values.js';
import { LISTING_FORMAT, listingFormatOf, listingKeyProblem } from './listing-message.js';

/** One Kafka message as the stream sees it (the client library's own type stays inside kafka-consumer.ts). */
export interface StreamMessage {
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  /** Milliseconds since the epoch, as the producer or the broker stamped it. */
  timestamp: number;
  /** The message's headers; `listings-message` marks one of `listings enqueue` (see listing-message.ts). */
  headers?: Readonly<Record<string, Buffer | string | undefined>>;
}

/** How message values become drafts: the same renames, list separator and presets as `publish`. */
export interface MessageMapping {
  map?: FieldMap;
  listSeparator?: string;
  preset?: PresetName;
}

/** Where a message is, for reports and errors: `TOPIC/PARTITION#OFFSET`. */
export function messageLocation(message: Pick<StreamMessage, 'topic' | 'partition' | 'offset'>): Location {
  return { source: `${message.topic}/${message.partition}`, record: message.offset };
}

/** `topic t, partition 2`: where the messages of a location's source (`TOPIC/PARTITION`) are, as a person says it. */
export function messagesPlace(source: string): string {
  const slash = source.lastIndexOf('/');
  return `topic ${source.slice(0, slash)}, partition ${source.slice(slash + 1)}`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function unreadable(location: Location, message: string): Draft {
  return { location, values: {}, issues: [{ path: '(record)', message }] };
}

async function firstDraft(preset: PresetName, location: Location, fields: Record<string, unknown>): Promise<Draft> {
  const one: AsyncIterable<{ location: Location; fields: Record<string, unknown> }> = {
    [Symbol.asyncIterator]: () => {
      let done = false;
      return { next: () => Promise.resolve(done ? { value: undefined, done: true as const } : ((done = true), { value: { location, fields }, done: false as const })) };
    },
  };
  for await (const draft of presetDrafts(preset, one)) return draft;
  return { location, values: {}, issues: [], skip: `not a listing under the ${preset} preset` };
}

/**
 * Turns each message into a draft, as `publish` turns a JSON record into one: the value is a JSON object shaped
 * like a catalog record; the key, when there is one, is the SKU (a value naming another SKU is an error, since
 * which one is meant cannot be told). A message that is not such an object is a draft with the reason as its issue,
 * so it is reported (and dead-lettered), never lost. A tombstone (no value) asks for a delete, which the service does
 * not offer: it is skipped. A message of `listings enqueue` (its header says so) is a listing already mapped: it is
 * read as it is, whatever the renames and preset, and its key is `MARKETPLACE/SKU`.
 */
export function createMessageMapper(mapping: MessageMapping): (message: StreamMessage) => Promise<Draft> | Draft {
  const toDraft = createRecordMapper({ ...(mapping.map === undefined ? {} : { map: mapping.map }), ...(mapping.listSeparator === undefined ? {} : { listSeparator: mapping.listSeparator }) });
  const { preset } = mapping;
  const asWritten = createRecordMapper({});
  const withKey = (draft: Draft, key: string | undefined): Draft => {
    if (key === undefined || key === '') return draft;
    const sku = draft.values.sku;
    if (sku === undefined) draft.values.sku = key;
    else if (sku !== key) draft.issues.push({ path: 'sku', message: `the message key ${JSON.stringify(key)} and the sku ${JSON.stringify(sku)} differ` });
    return draft;
  };
  return (message) => {
    const location = messageLocation(message);
    let key: string | undefined;
    try {
      key = message.key === null ? undefined : utf8.decode(message.key);
    } catch {
      return unreadable(location, 'the message key is not UTF-8 text');
    }
    const format = listingFormatOf(message.headers);
    if (format !== undefined && format !== LISTING_FORMAT) {
      return unreadable(location, `the message is of listings enqueue's format ${JSON.stringify(format.slice(0, 40))}, which this version does not read (it reads ${LISTING_FORMAT})`);
    }
    // A listing's key names its marketplace too: it is checked against the listing, not taken as its SKU.
    const listingKeyText = key;
    if (format !== undefined) key = undefined;
    if (message.value === null) {
      const draft: Draft = { location, values: {}, issues: [], skip: 'tombstone (the service has no delete operation)' };
      if (key !== undefined && key !== '') draft.values.sku = key;
      return draft;
    }
    let fields: unknown;
    try {
      fields = parseJsonRecord(utf8.decode(message.value));
    } catch (error) {
      const said = error instanceof JsonDepthError || error instanceof JsonDuplicateKeyError;
      const why = error instanceof SyntaxError ? `not JSON (${error.message})` : said ? `JSON that ${error.message}` : 'not UTF-8 text';
      return withKey(unreadable(location, `the message value is ${why}`), key);
    }
    if (!isJsonObject(fields)) {
      return withKey(unreadable(location, `the message value is JSON but not an object (${describeJson(fields)})`), key);
    }
    const record = fields;
    if (format !== undefined) {
      const draft = asWritten({ location, fields: record });
      const problem = listingKeyProblem(listingKeyText, draft.values);
      if (problem !== undefined) draft.issues.push({ path: 'sku', message: problem });
      return draft;
    }
    if (preset !== undefined) return firstDraft(preset, location, record).then((draft) => withKey(draft, key));
    return withKey(toDraft({ location, fields: record }), key);
  };
}
