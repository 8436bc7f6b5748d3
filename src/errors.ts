/**
 * A setting a library caller passes, that an error is about: its option name (a CatalogOptions key such as `map`,
 * `jsonPath`, `sourceHeaders`; `mapping` for a mapping file) and the value given, as text.
 */
export interface Setting {
  key: string;
  /** The value as given (`sku=Variant SKU`, `products`), when the error is about one value. */
  value?: string;
}

/**
 * Names a setting (or a library function) in a text. The library names each by its own name (`jsonPath`); the CLI
 * by its flag (`--json-path`) or command.
 */
export type NameSetting = (key: string) => string;

/** A message or hint that names settings: written once, worded by whoever shows it. */
export type SettingText = (name: NameSetting) => string;

/** The library's own wording: a setting by its option name. */
export const libraryName: NameSetting = (key) => key;

/** What a typed error may carry besides its message. */
export interface ListingsErrorOptions {
  cause?: unknown;
  /** A next step; a SettingText when it names a setting. */
  hint?: string | SettingText | undefined;
  /** The setting the error is about, when it is about one. */
  setting?: Setting | undefined;
}

/**
 * The typed errors of the run itself. A failed or invalid row is an outcome, not one of these.
 * The CLI maps each kind to a message, a hint and an exit code in one place (src/cli/report-error.ts).
 */
export abstract class ListingsError extends Error {
  abstract readonly kind: 'api' | 'network' | 'timeout' | 'source' | 'config' | 'usage';
  /** A next step for the person reading the message. */
  readonly hint: string | undefined;
  /** The setting the error is about, as a library caller passes it: e.g. `{ key: 'map', value: 'sku=Variant' }`. */
  readonly setting: Setting | undefined;
  readonly #message: SettingText | undefined;
  readonly #hint: SettingText | undefined;
  /** `message` (and `options.hint`) may be a SettingText: `message` then names settings as the library does. */
  constructor(message: string | SettingText, options?: ListingsErrorOptions) {
    super(typeof message === 'string' ? message : message(libraryName), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    const hint = options?.hint;
    this.hint = typeof hint === 'function' ? hint(libraryName) : hint;
    this.setting = options?.setting;
    this.#message = typeof message === 'function' ? message : undefined;
    this.#hint = typeof hint === 'function' ? hint : undefined;
  }

  /** The message and hint with each setting they name worded by `name` (the CLI passes its flags). */
  wordedWith(name: NameSetting): { message: string; hint: string | undefined } {
    return { message: this.#message?.(name) ?? this.message, hint: this.#hint?.(name) ?? this.hint };
  }
}

/** `map sku=Variant` (or `--map sku=Variant`): a setting and its value, the setting worded by `name`. */
export function namedSetting(setting: Setting, name: NameSetting): string {
  return setting.value === undefined ? name(setting.key) : `${name(setting.key)} ${setting.value}`;
}

/** The service answered with a status outside 2xx (or a 2xx body that breaks the contract). */
export class ApiError extends ListingsError {
  readonly kind = 'api';
  constructor(
    /** HTTP status code. */
    readonly status: number,
    message: string,
    /** Parsed JSON body when the body was JSON, else the (truncated) text. */
    readonly body: unknown,
    /** The raw `Retry-After` header, when sent. */
    readonly retryAfter?: string | undefined,
    hint?: string,
  ) {
    super(message, { hint });
  }
}

/** The request did not get an answer: refused, reset, DNS, TLS. */
export class NetworkError extends ListingsError {
  readonly kind = 'network';
  /** The errno-style code of the underlying failure, e.g. ECONNREFUSED. */
  readonly code: string | undefined;
  constructor(message: string, options: ListingsErrorOptions & { code?: string | undefined }) {
    super(message, options);
    this.code = options.code;
  }
}

/** Which wait ran out: opening the connection, the answer's headers, or its body. */
export type TimeoutPhase = 'connect' | 'headers' | 'body';

/** No answer within the time limit. */
export class TimeoutError extends ListingsError {
  readonly kind = 'timeout';
  readonly phase: TimeoutPhase;
  constructor(readonly timeoutMs: number, options?: { cause?: unknown; phase?: TimeoutPhase; hint?: string }) {
    const phase = options?.phase ?? 'headers';
    super(phase === 'connect' ? `could not connect within ${timeoutMs} ms` : `no answer within ${timeoutMs} ms`, options);
    this.phase = phase;
  }
}

/** Where a record came from: a source name plus a line (text formats) or a record index (JSON). */
export interface Location {
  source: string;
  line?: number;
  record?: number;
}

export function formatLocation(location: Location): string {
  if (location.line !== undefined) return `${location.source}:${location.line}`;
  if (location.record !== undefined) return `${location.source}#${location.record}`;
  return location.source;
}

/** The source could not be read at all (missing file, 404 URL, unreadable S3 object). */
export class SourceError extends ListingsError {
  readonly kind = 'source';
  constructor(readonly location: Location, message: string, options?: ListingsErrorOptions) {
    super(`${formatLocation(location)}: ${message}`, options);
  }
}

/** Configuration is missing or wrong; nothing was sent. */
export class ConfigError extends ListingsError {
  readonly kind = 'config';
}

/** The command line itself is wrong; nothing was sent. */
export class UsageError extends ListingsError {
  readonly kind = 'usage';
}

/** Who holds a run lock, as written in the lock file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the holding run started. */
  startedAt: string;
}

/**
 * Another run is writing the same journal or state file (its lock file exists and its holder may be alive): this
 * run is refused before anything is sent. A ConfigError, so the exit is 2.
 */
export class RunLockedError extends ConfigError {
  constructor(
    message: string,
    /** The journal or state file, as the caller named it. */
    readonly path: string,
    /** The lock file beside it. */
    readonly lockPath: string,
    /** The holder the lock file names; undefined when it cannot be read. */
    readonly holder: LockHolder | undefined,
    hint: string,
  ) {
    super(message, { hint });
  }
}
