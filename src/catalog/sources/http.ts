import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { SourceError, UsageError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { registerSecret } from '../../secrets.js';
import { redactSourceName, redactUrlsIn } from '../../secret-url.js';
import { parseSourceHeaders } from './headers.js';
import { endHoldingAgent } from './held-end.js';
import { metered } from './meter-stream.js';
import { refusedRedirect } from './redirect-target.js';
import { failSlowBody } from './slow-body.js';
import { schemeOf, type SourceKind } from './source-kind.js';
import { Meter, type OpenedSource } from './types.js';

/** Redirects followed before giving up. */
export const MAX_REDIRECTS = 5;

/** The connections catalog sources are read on (see held-end.ts), made at the first URL read. */
let dispatcher: Dispatcher | undefined;

/** How long a server may keep us waiting for its headers, or between two pieces of the body; a body's window of at least 1 KiB. */
const IDLE_TIMEOUT_MS = 60_000;

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Why a request failed, with any URL in undici's message redacted (it may name the URL it was given). */
function networkReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = redactUrlsIn(error instanceof Error ? error.message : String(error));
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * The body of an answer that is not the catalog (a redirect, an error), left unread: its connection is closed rather
 * than read to its end, which a server could trickle for ever, or never send.
 */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The URL's userinfo (`https://user:password@host/...`) as the Basic credentials it means, for the URL's own origin;
 * undici would drop them. Registered as a secret; the request goes to the URL without them.
 */
function userinfoAuthorization(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const credentials = Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`).toString('base64');
  registerSecret(credentials);
  url.username = '';
  url.password = '';
  return `Basic ${credentials}`;
}

/**
 * GETs an http(s) URL with undici and returns its body as a stream, once the answer is a 2xx. Redirects are followed
 * (at most five); the extra headers go only to the URL's own origin, never to another one a redirect leads to. A
 * non-2xx answer, too many redirects or a failed connection throws SourceError naming the URL.
 */
export async function openHttp(url: string, extraHeaders: Record<string, string>, signal?: AbortSignal, idleTimeoutMs = IDLE_TIMEOUT_MS): Promise<OpenedSource> {
  // undici adds some 20 MB to the process: loaded only when a URL is read.
  const undici = await import('undici');
  const { request } = undici;
  dispatcher ??= endHoldingAgent(undici);
  // A URL may carry credentials (userinfo, a token, a pre-signed URL's signature): the source is named with them
  // masked (`https://****@host/c.csv?X-Amz-Signature=****`), so no message, report or location shows them.
  const shown = redactSourceName(url);
  let current = new URL(url);
  const basic = userinfoAuthorization(current);
  const own = { ...(basic === undefined ? {} : { authorization: basic }), ...extraHeaders };
  const origin = current.origin;
  for (let redirects = 0; ; redirects++) {
    const headers: Record<string, string> = {
      'user-agent': `listings-cli/${VERSION}`,
      ...(current.origin === origin ? own : {}),
    };
    let answer;
    // undici starts its headers timeout again at each informational (1xx) answer: a server sending 102 Processing
    // every few seconds would hold the run for ever. The headers have one deadline from the request on.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), idleTimeoutMs);
    try {
      answer = await request(current, {
        method: 'GET',
        dispatcher,
        headers,
        headersTimeout: idleTimeoutMs,
        bodyTimeout: idleTimeoutMs,
        signal: signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]),
      });
    } catch (error) {
      if (deadline.signal.aborted && signal?.aborted !== true) {
        throw new SourceError({ source: shown }, `cannot fetch: no answer within ${idleTimeoutMs / 1000} s (the server sent no headers, or only informational 1xx answers)`);
      }
      if (error instanceof Error && error.name === 'AbortError') throw error;
      throw new SourceError({ source: shown }, `cannot fetch: ${networkReason(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    const status = answer.statusCode;
    const location = header(answer.headers, 'location');
    if (status >= 300 && status < 400 && location !== undefined) {
      discard(answer.body);
      if (redirects === MAX_REDIRECTS) throw new SourceError({ source: shown }, `more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, current);
      const refused = refusedRedirect(next);
      if (refused !== undefined) throw new SourceError({ source: shown }, refused);
      current = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      discard(answer.body);
      throw new SourceError({ source: shown }, `the server answered HTTP ${status}${redirects === 0 ? '' : ` (at ${redactSourceName(current.href)})`}`);
    }
    const length = Number(header(answer.headers, 'content-length'));
    const meter = new Meter(Number.isFinite(length) && length >= 0 ? length : undefined);
    const contentType = header(answer.headers, 'content-type');
    const contentEncoding = header(answer.headers, 'content-encoding');
    return {
      first: {
        name: shown,
        path: current.pathname,
        stream: metered(failSlowBody(answer.body, idleTimeoutMs), meter, signal),
        ...(contentType === undefined ? {} : { contentType }),
        ...(contentEncoding === undefined ? {} : { contentEncoding }),
      },
      meter,
    };
  }
}

/** An http(s) URL, fetched with the source headers (`sourceHeaders`) sent to its origin. */
export const httpSource: SourceKind = {
  name: 'http',
  forms: 'http(s)://…',
  match: (source) => {
    const scheme = schemeOf(source);
    return scheme === 'http' || scheme === 'https';
  },
  open: async (source, options) => {
    if (!URL.canParse(source)) throw new UsageError(`${redactSourceName(source)} is not a valid URL`);
    return openHttp(source, parseSourceHeaders(options.sourceHeaders), options.signal);
  },
};
