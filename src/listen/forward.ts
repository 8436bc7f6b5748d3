import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What became of one forward: the status the target answered, or why it could not be sent. */
export type ForwardResult = { ok: boolean; status: number; ms: number } | { ok: false; error: string; ms: number };

/** A request to send again: method, headers (without connection headers) and the body's bytes. */
export interface ForwardRequest {
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Whether a failed attempt may be sent again: the kept-alive connection it went out on was closed by the target
 * (ECONNRESET, EPIPE) before a byte of answer came back. That is a target closing an idle connection (its
 * keep-alive timeout) just as the request was written to it, which it never read. A timeout, an error on a new
 * connection, or any byte of an answer is not: the target may have acted on the request.
 */
function closedUnread(req: ClientRequest, error: NodeJS.ErrnoException, readBefore: number | undefined): boolean {
  if (!req.reusedSocket || (error.code !== 'ECONNRESET' && error.code !== 'EPIPE')) return false;
  return readBefore !== undefined && req.socket?.bytesRead === readBefore;
}

/** Sends callbacks on to one URL (a local app), with kept-alive connections. */
export class Forwarder {
  private readonly url: URL;
  private readonly agent: HttpAgent;
  /** New connections only: the one resend of a request whose kept-alive connection the target had closed. */
  private readonly freshAgent: HttpAgent;

  constructor(
    url: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.url = new URL(url);
    const Agent = this.url.protocol === 'https:' ? HttpsAgent : HttpAgent;
    this.agent = new Agent({ keepAlive: true });
    this.freshAgent = new Agent({ keepAlive: false });
  }

  /**
   * Send one request; resolves, never rejects, within `timeoutMs` whatever the target does: the socket's idle timeout
   * alone would wait for ever on a target that trickles its answer a byte at a time (and a shutdown waits for the
   * forwards in flight). `ok` is a 2xx answer read to its end. A request the target closed its kept-alive connection
   * on, unread, is sent once more on a new connection, within the same `timeoutMs`.
   */
  send(request: ForwardRequest): Promise<ForwardResult> {
    const started = performance.now();
    const ms = (): number => Math.round(performance.now() - started);
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      let req: ClientRequest | undefined;
      const deadline = setTimeout(() => {
        settle({ ok: false, error: `no whole answer within ${this.timeoutMs} ms`, ms: ms() });
        req?.destroy();
      }, this.timeoutMs);
      const settle = (result: ForwardResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      const attempt = (agent: HttpAgent): void => {
        try {
          req = send(this.url, {
            method: request.method,
            agent,
            headers: { ...request.headers, 'content-length': String(request.body.length) },
            timeout: this.timeoutMs,
          });
        } catch (error) {
          // A header Node refuses to send (the callers check them first: this is the last guard, not a path).
          settle({ ok: false, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message, ms: ms() });
          return;
        }
        const sent = req;
        let readBefore: number | undefined;
        sent.on('socket', (socket) => (readBefore = socket.bytesRead));
        sent.on('response', (res) => {
          const status = res.statusCode ?? 0;
          // The answer's body is not wanted, but it is read to its end so the connection can be used again.
          res.resume();
          res.on('end', () => settle({ ok: status >= 200 && status < 300, status, ms: ms() }));
          res.on('error', () => settle({ ok: false, error: `the answer (HTTP ${status}) was cut off`, ms: ms() }));
          res.on('close', () => settle({ ok: false, error: `the answer (HTTP ${status}) was cut off`, ms: ms() }));
        });
        sent.on('timeout', () => {
          sent.destroy(new Error(`no answer within ${this.timeoutMs} ms`));
        });
        sent.on('error', (error: NodeJS.ErrnoException) => {
          // Once: the new connection is not a kept-alive one, so its own failure is not sent again.
          if (!settled && closedUnread(sent, error, readBefore)) return attempt(this.freshAgent);
          settle({ ok: false, error: error.code ?? error.message, ms: ms() });
        });
        sent.end(request.body);
      };
      attempt(this.agent);
    });
  }

  close(): void {
    this.agent.destroy();
    this.freshAgent.destroy();
  }
}
