import type { Dispatcher, Pool } from 'undici';
import { ConnectionTiers } from './connection-tiers.js';
import { buildConnectorFn, parseHeaders, undiciErrors } from './undici.js';
import { checkRequestJson } from './request-json.js';
import { WarmConnections } from './warm-connections.js';
import { proxyError, proxyHopError } from './proxy.js';
import { MAX_LISTING_BODY, openDispatcher, post, type RawAnswer } from './transport.js';
import { describeCode, errorCode, isNotHttp, notHttpHint, transportHint } from './transport-errors.js';
import { ApiError, NetworkError, TimeoutError, UsageError } from '../errors.js';
import { contractSchemas, type ListingRequest, type ListingResponse } from '../contract/schemas.js';
import { checkClientOptions, checkRequestOptions, type ListingsClientOptions, type RequestOptions } from './client-options.js';
import { listingsEndpoint, proxyRoute, type Endpoint, type ProxyRoute } from './endpoint.js';
import { errorMessage, MAX_LOCATION, parseErrorBody, shortText } from './error-message.js';
import { registerSecret, redact, redactCut } from '../secrets.js';
import { VERSION } from '../version.js';
import { stringifyJson } from '../json-number.js';
import { JsonDepthError, parseJsonText } from '../json-text.js';

export type { ListingsClientOptions, RequestOptions } from './client-options.js';

/** A listing the service accepted. */
export interface CreateListingResult {
  /** The 2xx status code the service answered with. */
  status: number;
  listing: ListingResponse;
}

/** The typed client of the Listing Publication Service. Keep one per run; `close()` ends its connections. */
export class ListingsClient {
  readonly endpoint: Endpoint;
  /** The proxy the requests go through, if any. */
  readonly proxy: ProxyRoute | undefined;
  /** Pools to the service (undici ProxyAgents only when a proxy is used), in tiers. */
  private readonly connections: ConnectionTiers;
  /** Connections opened ahead of a growing window (none through a proxy). */
  private readonly warm: WarmConnections | undefined;
  /** Name, value, name, value...: undici's cheapest form; a keyed request appends two entries to a copy. */
  private readonly headers: string[];
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;

  constructor(given: ListingsClientOptions) {
    const options = checkClientOptions(given);
    registerSecret(options.apiKey);
    this.endpoint = listingsEndpoint(options.baseUrl, { allowInsecureHttp: options.allowInsecureHttp ?? false });
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.proxy = proxyRoute(this.endpoint.origin, { allowInsecureHttp: options.allowInsecureHttp ?? false, ...(options.proxy === undefined ? {} : { proxy: options.proxy }) });
    const poolOptions: Pool.Options = {
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connectTimeout: this.connectTimeoutMs,
    };
    // The connector a Pool builds from these options itself, shared by both tiers and able to open connections ahead.
    this.warm = this.proxy === undefined ? new WarmConnections(buildConnectorFn({ timeout: this.connectTimeoutMs })) : undefined;
    if (this.warm !== undefined) poolOptions.connect = this.warm.connector;
    this.connections = new ConnectionTiers(options.connections ?? 16, (connections) =>
      openDispatcher(this.endpoint.origin, this.proxy, { ...poolOptions, connections }, this.connectTimeoutMs),
    );
    this.headers = [
      'authorization',
      `Bearer ${options.apiKey}`,
      'content-type',
      'application/json',
      'accept',
      'application/json',
      // Listings are small: no compression is asked for (one that comes anyway is read, see content-coding.ts).
      'accept-encoding',
      'identity',
      'user-agent',
      options.userAgent ?? `listings-cli/${VERSION}`,
    ];
  }

  /** POST one listing. Resolves on any 2xx; throws ApiError, NetworkError or TimeoutError otherwise. */
  createListing(request: ListingRequest, options: RequestOptions = {}): Promise<CreateListingResult> {
    // Rejected rather than thrown: a caller chaining .catch() hears a wrong option too.
    let checked: RequestOptions;
    try {
      checked = checkRequestOptions(options);
      checkRequestJson(request);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.postListingJson(stringifyJson(request), checked);
  }

  /** As createListing, for a body already serialised (the batch engine hashes it before sending). */
  postListingJson(body: string, options: RequestOptions = {}): Promise<CreateListingResult> {
    const headers = options.idempotencyKey === undefined ? this.headers : [...this.headers, 'idempotency-key', options.idempotencyKey];
    const { signal } = options;
    // Chained rather than awaited in an async function: one promise and one step less per request.
    const request: Dispatcher.DispatchOptions = { origin: this.endpoint.origin, path: this.endpoint.path, method: 'POST', headers, body };
    const answer = this.connections.send((dispatcher) => post(dispatcher, request, this.timeoutMs, signal, options.onWritten));
    return answer.then(this.#resultOf, signal === undefined ? this.#unsignalledError : (error: unknown) => this.#throwTransportError(error, signal));
  }

  readonly #unsignalledError = (error: unknown): never => this.#throwTransportError(error, undefined);

  #throwTransportError(error: unknown, signal: AbortSignal | undefined): never {
    this.warm?.discard();
    throw this.transportError(error, signal);
  }

  /** The listing of a 2xx answer; any other answer is thrown as an ApiError. */
  readonly #resultOf = (answer: RawAnswer): CreateListingResult => {
    const { statusCode } = answer;
    if (statusCode >= 200 && statusCode < 300) {
      if (answer.cut) throw new ApiError(statusCode, `HTTP ${statusCode}: the answer is larger than ${MAX_LISTING_BODY / 1024 / 1024} MiB, so not a listing; not read further`, undefined);
      if (answer.unreadable !== undefined) throw new ApiError(statusCode, redact(`HTTP ${statusCode}: the answer cannot be read: ${answer.unreadable}`), undefined);
      return { status: statusCode, listing: parseListing(statusCode, answer.text) };
    }
    // An error body is read only so far: a key the server echoed across that end must not be shown in part.
    const raw = answer.cut ? redactCut(answer.text) : answer.text;
    const responseHeaders = parseHeaders(answer.rawHeaders);
    const parsed = parseErrorBody(redact(raw));
    const retryAfter = headerValue(responseHeaders['retry-after']);
    let message = redact(errorMessage(statusCode, parsed));
    if (answer.unreadable !== undefined) message = redact(`${message} (its body cannot be read: ${answer.unreadable})`);
    let hint: string | undefined;
    if (statusCode === 304) {
      // Not a redirect: the answer to a conditional request, which a POST is not; there is no address to go to.
      message = `${message}: the answer to a conditional request, which this POST was not; not a listing`;
      hint = 'check base_url: a cache or proxy in front of the service may be answering for it';
    } else if (statusCode >= 300 && statusCode < 400) {
      // The Location is the server's text like any other: shown escaped and cut short, never obeyed.
      const location = headerValue(responseHeaders.location);
      message = location
        ? redact(`HTTP ${statusCode}: the service redirected to ${shortText(redact(location), MAX_LOCATION)}; not followed, so the API key is not sent elsewhere`)
        : `HTTP ${statusCode}: a redirect that names no address (no Location header); not a listing`;
      hint = location ? 'set base_url to the final address' : 'check base_url: something in front of the service answers for it';
    } else if (statusCode === 401 || statusCode === 403) {
      hint = 'the API key was rejected: check the environment variable named by api_key_env (default LISTINGS_API_KEY)';
    } else if (statusCode === 404 || statusCode === 405 || statusCode === 501) {
      hint = `no listing operation at ${this.endpoint.origin}${this.endpoint.path}: check base_url`;
    }
    throw new ApiError(statusCode, message, parsed, retryAfter, hint);
  };

  /**
   * Open connections ahead of the requests that will need them, up to `count` connections in all (a window about to
   * grow, on a service slow enough that the wait for its answers leaves time to connect). Nothing through a proxy.
   */
  prepareConnections(count: number): void {
    this.warm?.prepare(count);
  }

  async close(): Promise<void> {
    this.warm?.close();
    await this.connections.close();
  }

  /** Abandon in-flight requests and close. */
  async destroy(): Promise<void> {
    this.warm?.close();
    await this.connections.destroy();
  }

  private transportError(error: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason ?? error;
    // A request option's callback that threw (onWritten): the caller's error, as it is.
    if (error instanceof UsageError) return error;
    if (this.proxy !== undefined) {
      const hop = proxyHopError(error);
      if (hop !== undefined) return proxyError(this.endpoint.origin, this.proxy, hop, this.connectTimeoutMs);
    }
    if (error instanceof undiciErrors.ConnectTimeoutError) {
      return new TimeoutError(this.connectTimeoutMs, { cause: error, phase: 'connect', hint: 'check base_url, and that nothing (a firewall, a proxy) drops the connection' });
    }
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
      return new TimeoutError(this.timeoutMs, { cause: error, phase: error instanceof undiciErrors.BodyTimeoutError ? 'body' : 'headers' });
    }
    const code = errorCode(error);
    const detail = error instanceof Error ? error.message : String(error);
    const via = this.proxy === undefined ? '' : ` through the proxy ${this.proxy.shown}`;
    if (isNotHttp(error)) {
      return new NetworkError(redact(`${this.endpoint.origin}${via} answered something that is not HTTP/1.1: ${describeCode(code) ?? detail}`), { cause: error, code, hint: notHttpHint(this.endpoint.origin, error) });
    }
    return new NetworkError(redact(`cannot reach ${this.endpoint.origin}${via}: ${describeCode(code) ?? detail}`), { cause: error, code, hint: transportHint(code) });
  }
}

/** The most of a wrong answer's fields named in its message. */
const MAX_CONTRACT_PATHS = 5;

function parseListing(status: number, text: string): ListingResponse {
  let json: unknown;
  try {
    // Some servers start JSON with a byte order mark, which a parser may ignore (RFC 8259 §8.1), as an error body's trim does.
    json = parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    if (error instanceof JsonDepthError) throw new ApiError(status, `HTTP ${status}: the answer ${error.message}, so it is not read as a listing`, undefined);
    throw new ApiError(status, `HTTP ${status}: the answer is not JSON`, parseErrorBody(redact(text)));
  }
  // The common case, checked by hand: the zod parse of every answer cost more than the rest of the client.
  if (isListing(json)) return json;
  const { checked, uncounted } = withFewWrongItems(json);
  const result = contractSchemas().listingResponseSchema.safeParse(checked);
  if (!result.success) {
    // One issue per wrong item: an item_specifics of 100,000 numbers would make a message of megabytes.
    const paths = result.error.issues.map((issue) => issue.path.join('.') || '(body)');
    const rest = paths.length - MAX_CONTRACT_PATHS + uncounted;
    const more = rest > 0 ? ` and ${rest} more` : '';
    throw new ApiError(status, `HTTP ${status}: the answer does not match the listing contract (${paths.slice(0, MAX_CONTRACT_PATHS).join(', ')}${more})`, json);
  }
  return result.data;
}

/**
 * The answer as the schema is shown it. zod makes one issue per wrong item, at microseconds each, so an item_specifics
 * of 500,000 numbers (a 1 MiB answer) would hold the process for seconds: the schema sees the items up to the first
 * wrong one that is not named, and the wrong ones after it are only counted (`uncounted`).
 */
function withFewWrongItems(json: unknown): { checked: unknown; uncounted: number } {
  const items = typeof json === 'object' && json !== null ? (json as Record<string, unknown>).item_specifics : undefined;
  if (!Array.isArray(items)) return { checked: json, uncounted: 0 };
  let wrong = 0;
  let end = items.length;
  for (let i = 0; i < items.length; i++) {
    if (typeof items[i] === 'string') continue;
    wrong++;
    if (wrong === MAX_CONTRACT_PATHS + 1) end = i;
  }
  if (end === items.length) return { checked: json, uncounted: 0 };
  return { checked: { ...(json as Record<string, unknown>), item_specifics: items.slice(0, end) }, uncounted: wrong - MAX_CONTRACT_PATHS };
}

/** What listingResponseSchema accepts: an object with the four shown fields (others are kept). */
function isListing(value: unknown): value is ListingResponse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { sku, status, title, item_specifics: specifics } = value as Record<string, unknown>;
  if (typeof sku !== 'string' || typeof status !== 'string' || typeof title !== 'string' || !Array.isArray(specifics)) return false;
  for (const item of specifics) if (typeof item !== 'string') return false;
  return true;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
