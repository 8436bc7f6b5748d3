import { namedSetting, SourceError, UsageError, type Location, type Setting, type SettingText } from '../../errors.js';
import type { RecordItem } from '../types.js';
import { notReadToEnd } from '../sources/read-failure.js';
import { isJsonObject } from './json-values.js';
import { MAX_RECORD_BYTES } from './limits.js';
import { INVALID_UTF8 } from './utf8-watch.js';
import { numberFromText } from '../../json-number.js';
import { JsonDuplicateKeyError, JsonValueBuilder, MAX_JSON_DEPTH, TOO_DEEP } from '../../json-text.js';

/** One token of stream-json's parser with keys, strings and numbers packed. */
export interface JsonToken {
  name: string;
  value?: string | boolean | null;
}

/** What `broken` is told when the input ended holding nothing but white space. */
export const ONLY_WHITE_SPACE = 'nothing but white space';
type Mode = 'start' | 'seek' | 'skip' | 'elements' | 'element' | 'after' | 'done';

const SCALAR_NAMES: Readonly<Record<string, string>> = {
  stringValue: 'a string',
  numberValue: 'a number',
  nullValue: 'null',
  trueValue: 'true',
  falseValue: 'false',
};

function tokenKind(token: JsonToken): string {
  if (token.name === 'startObject') return 'an object';
  if (token.name === 'startArray') return 'an array';
  return SCALAR_NAMES[token.name] ?? token.name;
}

function scalarOf(token: JsonToken): unknown {
  if (token.name === 'numberValue') return numberFromText(token.value as string);
  return token.value;
}

/** The `jsonPath` setting as errors about it carry it. */
function jsonPathSetting(path: readonly string[]): Setting {
  return { key: 'jsonPath', value: path.join('.') };
}

/** A jsonPath that does not fit the document: where and why, then the setting named. */
function jsonPathMismatch(source: string, path: readonly string[], why: string): UsageError {
  return new UsageError((name) => `${source}: ${why} (${name('jsonPath')})`, { setting: jsonPathSetting(path) });
}

const NDJSON_HINT: SettingText = (name) => `if it is one JSON object per line, use ${name('format')} ndjson`;
const CHOOSE_ARRAY_HINT: SettingText = (name) => `choose one with ${name('jsonPath')}`;

/**
 * Picks the records out of a JSON token stream: the elements of the top-level array, or of the array at `path`
 * inside the top-level object (`["products"]`), or, without a path, of the object's single array-valued key. Each
 * element is built into a value and handed on; a non-object element or one over the size limit is handed on as an
 * error item. When nothing more can be read (a structure that holds no usable array, JSON that breaks or ends
 * early) `stopped` is set to the error to throw after the records: a record the JSON breaks inside is handed on
 * first as an error item, since it is a row; a structure that is not a record is none.
 *
 * Without a path the choice is made when the first array-valued key is met, since a stream cannot look ahead: a
 * second array-valued key found later ends the records with an error naming both.
 */
export class JsonSelector {
  /** Set when nothing more will be emitted: the error to throw after the items emitted before it. */
  stopped: Error | undefined;
  readonly #source: string;
  readonly #path: readonly string[] | undefined;
  readonly #emit: (item: RecordItem) => void;
  readonly #onStop: () => void;
  #mode: Mode = 'start';
  #depth = 0;
  /** Depth of the object whose members are being searched. */
  #seekDepth = 0;
  #segment = 0;
  #key: string | undefined;
  #skipTo = 0;
  #afterSkip: Mode = 'seek';
  /** Depth of the array whose elements are the records. */
  #arrayDepth = 0;
  #chosen: string | undefined;
  #index = 0;
  // The element being built.
  #builder: JsonValueBuilder | undefined;
  #size = 0;
  /** Set when the element being built holds bytes that were not UTF-8. */
  #invalidText = false;

  constructor(source: string, path: readonly string[] | undefined, emit: (item: RecordItem) => void, onStop: () => void) {
    this.#source = source;
    this.#path = path !== undefined && path.length > 0 ? path : undefined;
    this.#emit = emit;
    this.#onStop = onStop;
  }

  /** How many elements of the array were seen. */
  get count(): number {
    return this.#index;
  }

  /** Where reading is: the record being built, or the one after the last record read. */
  get position(): { record: number } {
    return { record: this.#mode === 'element' ? this.#index : this.#index + 1 };
  }

  /**
   * Reading failed part-way, for `why` (undefined for an abort): the record being built, if any, is handed on as an
   * error item (it is cut off, never read as a shorter record), and `failure` ends the records.
   */
  failed(failure: Error, why: string | undefined): void {
    if (this.stopped !== undefined) return;
    if (why !== undefined && this.#mode === 'element') {
      this.#builder = undefined;
      this.#emit(this.#error(this.#index, `record ${this.#index} is cut off: reading stopped inside it (${why})`));
    }
    this.#stop(failure);
  }

  /**
   * The text read so far ends with bytes that were not UTF-8 (a U+FFFD in the string being read): the element being
   * built, if any, is refused at its end. Outside an element they are in no record (or in one refused already).
   */
  invalidText(): void {
    if (this.#mode === 'element') this.#invalidText = true;
  }

  token(token: JsonToken): void {
    if (this.stopped !== undefined) return;
    switch (this.#mode) {
      case 'element':
        return this.#element(token);
      case 'elements':
        return this.#elements(token);
      case 'skip':
        return this.#skip(token);
      case 'seek':
        return this.#seek(token);
      case 'after':
        return this.#after(token);
      case 'start':
        return this.#start(token);
      case 'done':
        return;
    }
  }

  /** The input ended with the JSON complete. */
  end(): void {
    if (this.stopped !== undefined) return;
    if (this.#mode === 'start') this.#stop(new SourceError(this.#at({ line: 1 }), 'the file is empty; expected a JSON array of objects'));
  }

  /**
   * The parser gave up: the JSON is broken, or, with `ended`, the input ended before it was complete (a file cut
   * short). A record it breaks inside is reported as an error item; the error points at that record, or at the one
   * after the last record read.
   */
  broken(message: string, ended = false): void {
    if (this.stopped !== undefined) return;
    const index = this.#index;
    const hint = ended ? 'export the file again, or wait until it is written whole' : undefined;
    if (this.#mode === 'element') {
      this.#emit(this.#error(index, ended ? `record ${index} is cut off: the file ends inside it` : `the JSON breaks inside record ${index}: ${message}`));
      const why = ended ? `the file ends inside record ${index}: it is cut short` : `the JSON breaks inside record ${index} (${message})`;
      this.#stop(notReadToEnd(this.#at({ record: index }), why, { hint }));
    } else if (this.#mode === 'elements') {
      const why = ended ? `the file ends after record ${index}, before the array is closed: it is cut short` : `the JSON breaks after record ${index} (${message})`;
      this.#stop(notReadToEnd(this.#at({ record: index + 1 }), why, { hint }));
    } else if (this.#mode === 'start') {
      const why = ended && message === ONLY_WHITE_SPACE ? 'the file is empty; expected a JSON array of objects' : `the file is not JSON: ${message}`;
      this.#stop(new SourceError(this.#at({ line: 1 }), why));
    } else {
      const why = ended ? 'the file ends outside the records, before the JSON is closed: it is cut short' : `the JSON breaks outside the records (${message})`;
      this.#stop(notReadToEnd(this.#at({}), why, { hint }));
    }
  }

  #start(token: JsonToken): void {
    if (token.name === 'startArray') {
      if (this.#path !== undefined) {
        const setting = jsonPathSetting(this.#path);
        this.#stop(new UsageError((name) => `${this.#source}: the top level is an array, so ${namedSetting(setting, name)} does not apply`, { setting }));
        return;
      }
      this.#depth = this.#arrayDepth = 1;
      this.#mode = 'elements';
    } else if (token.name === 'startObject') {
      this.#depth = this.#seekDepth = 1;
      this.#mode = 'seek';
    } else {
      this.#stop(new SourceError(this.#at({ line: 1 }), `the top level is ${tokenKind(token)}; expected an array of objects, or an object holding one`));
    }
  }

  #seek(token: JsonToken): void {
    const name = token.name;
    if (name === 'keyValue') {
      this.#key = String(token.value);
      return;
    }
    if (name === 'endObject') {
      this.#depth--;
      this.#mode = 'done';
      if (this.#path !== undefined) {
        const within = this.#segment === 0 ? 'the top-level object' : JSON.stringify(this.#path.slice(0, this.#segment).join('.'));
        this.#stop(jsonPathMismatch(this.#source, this.#path, `${within} has no key ${JSON.stringify(this.#path[this.#segment])}`));
      } else if (this.#chosen === undefined) {
        this.#stop(new SourceError(this.#at({}), 'the top-level object holds no array of records', { hint: NDJSON_HINT }));
      }
      return;
    }
    const opens = name === 'startObject' || name === 'startArray';
    const key = this.#key;
    this.#key = undefined;
    if (this.#path !== undefined && key === this.#path[this.#segment]) {
      const last = this.#segment === this.#path.length - 1;
      const want = last ? 'startArray' : 'startObject';
      if (name !== want) {
        this.#stop(jsonPathMismatch(this.#source, this.#path, `${JSON.stringify(this.#path.slice(0, this.#segment + 1).join('.'))} is ${tokenKind(token)}, not ${last ? 'an array' : 'an object'}`));
        return;
      }
      this.#depth++;
      if (last) {
        this.#arrayDepth = this.#depth;
        this.#mode = 'elements';
      } else {
        this.#seekDepth = this.#depth;
        this.#segment++;
      }
      return;
    }
    if (this.#path === undefined && this.#chosen !== undefined && key === this.#chosen) {
      this.#stopAtKeyTwice('the top-level object', key);
      return;
    }
    if (this.#path === undefined && name === 'startArray') {
      if (this.#chosen !== undefined) {
        const why = `the top-level object holds several arrays (${JSON.stringify(this.#chosen)}, ${JSON.stringify(key)})`;
        this.#stop(notReadToEnd(this.#at({ record: this.#index + 1 }), why, { hint: CHOOSE_ARRAY_HINT }));
        return;
      }
      this.#chosen = key;
      this.#depth++;
      this.#arrayDepth = this.#depth;
      this.#mode = 'elements';
      return;
    }
    if (opens) this.#startSkip('seek');
  }

  /**
   * After the records at the path, the rest of each object on the path is read for its path key given a second time:
   * JSON.parse would keep that later value, so reading only the first would lose the records of the other in silence.
   */
  #after(token: JsonToken): void {
    const path = this.#path!;
    const name = token.name;
    if (name === 'keyValue') {
      if (token.value !== path[this.#segment]) return;
      this.#stopAtKeyTwice(this.#segment === 0 ? 'the top-level object' : JSON.stringify(path.slice(0, this.#segment).join('.')), path[this.#segment]!);
    } else if (name === 'endObject') {
      this.#depth--;
      if (this.#segment === 0) this.#mode = 'done';
      else this.#segment--;
    } else if (name === 'startObject' || name === 'startArray') {
      this.#startSkip('after');
    }
  }

  /** The key the records are read from is met a second time in the same object. */
  #stopAtKeyTwice(within: string, key: string): void {
    const why = `${within} holds the key ${JSON.stringify(key)} twice, so the records under one of them would be lost`;
    this.#stop(notReadToEnd(this.#at({ record: this.#index + 1 }), why, { hint: 'keep one key of that name, holding all the records' }));
  }

  #elements(token: JsonToken): void {
    const name = token.name;
    if (name === 'endArray') {
      this.#depth--;
      this.#mode = this.#path === undefined ? (this.#seekDepth === 1 ? 'seek' : 'done') : 'after';
      return;
    }
    this.#index++;
    if (name === 'startObject') {
      this.#depth++;
      this.#builder = new JsonValueBuilder();
      this.#size = 0;
      this.#invalidText = false;
      this.#builder.open({});
      this.#mode = 'element';
      return;
    }
    this.#emit(this.#error(this.#index, `record ${this.#index} is ${tokenKind(token)}, not an object`));
    if (name === 'startArray') this.#startSkip('elements');
  }

  #element(token: JsonToken): void {
    const name = token.name;
    const value = token.value;
    const builder = this.#builder!;
    this.#size += typeof value === 'string' ? value.length + 2 : 4;
    if (this.#size > MAX_RECORD_BYTES) return this.#refuseElement(token, `record ${this.#index} is larger than 1 MiB`);
    switch (name) {
      case 'keyValue':
        builder.key(String(value));
        return;
      case 'startObject':
      case 'startArray':
        // The record object is level 1 (the array holding it is not counted).
        if (this.#depth - this.#arrayDepth >= MAX_JSON_DEPTH) return this.#refuseElement(token, `record ${this.#index} ${TOO_DEEP}`);
        this.#depth++;
        builder.open(name === 'startObject' ? {} : []);
        return;
      case 'endObject':
      case 'endArray':
        this.#depth--;
        builder.close();
        if (this.#depth === this.#arrayDepth) this.#finishElement();
        return;
      default:
        builder.put(scalarOf(token));
    }
  }

  /** The element being built is an error item for `why`; the rest of it is skipped. */
  #refuseElement(token: JsonToken, why: string): void {
    this.#emit(this.#error(this.#index, why));
    this.#builder = undefined;
    this.#mode = 'skip';
    this.#afterSkip = 'elements';
    this.#skipTo = this.#arrayDepth;
    this.#skip(token);
  }

  #finishElement(): void {
    this.#mode = 'elements';
    const fields = this.#builder?.root;
    const duplicate = this.#builder?.duplicate;
    this.#builder = undefined;
    if (!isJsonObject(fields)) return;
    if (duplicate !== undefined) return this.#emit(this.#error(this.#index, `record ${this.#index} ${new JsonDuplicateKeyError(duplicate).message}`));
    if (this.#invalidText) {
      this.#emit(this.#error(this.#index, `record ${this.#index} ${INVALID_UTF8}`));
      return;
    }
    this.#emit({ location: { source: this.#source, record: this.#index }, fields });
  }

  #startSkip(after: Mode): void {
    this.#depth++;
    this.#skipTo = this.#depth - 1;
    this.#afterSkip = after;
    this.#mode = 'skip';
  }

  #skip(token: JsonToken): void {
    const name = token.name;
    if (name === 'startObject' || name === 'startArray') this.#depth++;
    else if (name === 'endObject' || name === 'endArray') {
      this.#depth--;
      if (this.#depth === this.#skipTo) this.#mode = this.#afterSkip;
    }
  }

  #error(record: number, error: string): RecordItem {
    return { location: { source: this.#source, record }, error };
  }

  #at(place: Omit<Location, 'source'>): Location {
    return { source: this.#source, ...place };
  }

  #stop(error: Error): void {
    this.stopped = error;
    this.#onStop();
  }
}
