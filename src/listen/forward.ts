import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What became of one forward: the status the target answered, or why it could not be sent. */
export type ForwardResult = { ok: boolean; status: number; ms: number } | { ok: false; error: string; ms: number };

/** A request to send again: method, headers (without connection headers) and the body's bytes. */
export interface ForwardRequest {
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Sends callbacks on to one URL (a local app), with kept-alive connections. */
export class Forwarder {
  private readonly url: URL;
  private readonly agent: HttpAgent;

  constructor(
    url: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.url = new URL(url);
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /**
   * Send one request; resolves, never rejects, within `timeoutMs` whatever the target does: the socket's idle timeout
   * alone would wait for ever on a target that trickles its answer a byte at a time (and a shutdown waits for the
   * forwards in flight). `ok` is a 2xx answer read to its end.
   */
  send(request: ForwardRequest): Promise<ForwardResult> {
    const started = performance.now();
    const ms = (): number => Math.round(performance.now() - started);
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      let req: ReturnType<typeof send> | undefined;
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
      try {
        req = send(this.url, {
          method: request.method,
          agent: this.agent,
          headers: { ...request.headers, 'content-length': String(request.body.length) },
          timeout: this.timeoutMs,
        });
      } catch (error) {
        // A header Node refuses to send (the callers check them first: this is the last guard, not a path).
        settle({ ok: false, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message, ms: ms() });
        return;
      }
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not wanted, but it is read to its end so the connection can be used again.
        res.resume();
        res.on('end', () => settle({ ok: status >= 200 && status < 300, status, ms: ms() }));
        res.on('error', () => settle({ ok: false, error: `the answer (HTTP ${status}) was cut off`, ms: ms() }));
        res.on('close', () => settle({ ok: false, error: `the answer (HTTP ${status}) was cut off`, ms: ms() }));
      });
      req.on('timeout', () => {
        req?.destroy(new Error(`no answer within ${this.timeoutMs} ms`));
      });
      req.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, error: error.code ?? error.message, ms: ms() }));
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
