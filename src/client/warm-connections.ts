import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;

/** Connections opened ahead at once, at most: a burst of connects is one a server's accept queue can take. */
const OPENING_AT_ONCE = 64;
/**
 * An idle connection opened ahead is closed after this long unused (by default): well inside the time servers give a
 * connection to send its first request (20-60 s: Apache, nginx, Node), so it is not handed over as the server drops it.
 */
const IDLE_MS = 5_000;

/**
 * Connections opened ahead of the requests that will use them, for a pool to take instead of connecting itself.
 * On a slow service a start-up window grows by up to 8 x per round trip: its next round's requests, each on a new
 * connection, would open them all at once as the answers come in (measured: 1,708 requests at 2 s took 1.25 s of
 * this machine's CPU to leave, most of it connecting), while the round trip before sat idle. Only the service's own
 * origin is connected to, with the options the pool's own connections were opened with (the first connection of a
 * run is always the pool's own), and nothing is written on a connection until a request is.
 */
export class WarmConnections {
  readonly #connect: Connector;
  /** Connections opened ahead and not yet taken, oldest first. */
  readonly #idle: Parked[] = [];
  /** The options of the pool's first connection; nothing is opened ahead before it. */
  #options: ConnectOptions | undefined;
  /** Connections being opened ahead, and by the pools themselves. */
  #opening = 0;
  #poolOpening = 0;
  /** Connections handed to the pools and still open. */
  #inUse = 0;
  #wanted = 0;
  #closed = false;
  #sweep: NodeJS.Timeout | undefined;
  readonly #idleMs: number;

  constructor(connect: Connector, { idleMs = IDLE_MS }: { idleMs?: number } = {}) {
    this.#connect = connect;
    this.#idleMs = idleMs;
  }

  /** The connector the pools use: a connection opened ahead if one is idle, else a new one. */
  readonly connector: Connector = (options, callback) => {
    const socket = this.#take();
    if (socket !== undefined) {
      process.nextTick(callback, null, socket);
      return;
    }
    this.#poolOpening++;
    this.#connect(options, (error, opened) => {
      this.#poolOpening--;
      // (On a failure undici passes the error alone: no socket, not a null one.)
      if (opened) {
        this.#options ??= options;
        this.#track(opened);
      }
      (callback as (error: Error | null, socket: Socket | null) => void)(error, opened);
    });
  };

  /** Connections open or opening: in use by the pools, idle, or being opened (ahead, or by a pool). */
  get size(): number {
    return this.#inUse + this.#idle.length + this.#opening + this.#poolOpening;
  }

  /** Have `count` connections in all (see {@link size}), opening the rest ahead; never closes any. */
  prepare(count: number): void {
    this.#wanted = count;
    this.#openMore();
  }

  /**
   * A request failed without an answer: the service may have gone away or restarted, and the idle connections with
   * it, though their close is not yet read (a request handed one would fail too, one more error in a row). They are
   * closed, and none is opened ahead until asked again.
   */
  discard(): void {
    this.#wanted = 0;
    for (const parked of this.#idle.splice(0)) parked.socket.destroy();
  }

  /** Close the idle connections; none is opened ahead again. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#sweep);
    this.discard();
  }

  #openMore(): void {
    const options = this.#options;
    if (options === undefined || this.#closed) return;
    while (this.#opening < OPENING_AT_ONCE && this.size < this.#wanted) {
      this.#opening++;
      // undici's connector returns the socket it opens: one opened ahead never keeps the process alive, while it
      // connects or waits (a run that ends exits at once, as with undici's own idle connections); taken, it is.
      const opening: unknown = this.#connect(options, (error, socket) => {
        this.#opening--;
        // Opening ahead is only a head start: a connection that fails is the requests' to report, and no more are
        // opened ahead (the next round's own connections meet the same fault).
        if (!socket) {
          this.#wanted = 0;
          return;
        }
        if (this.#closed) {
          socket.destroy();
          return;
        }
        this.#park(socket);
        this.#openMore();
      });
      (opening as Partial<Socket> | undefined)?.unref?.();
    }
  }

  #park(socket: Socket): void {
    const parked: Parked = {
      socket,
      since: Date.now(),
      drop: () => {
        const at = this.#idle.indexOf(parked);
        if (at >= 0) this.#idle.splice(at, 1);
        socket.destroy();
      },
    };
    socket.once('end', parked.drop).once('close', parked.drop);
    this.#idle.push(parked);
    this.#sweep ??= setTimeout(this.#closeStale, this.#idleMs).unref();
  }

  /** The newest idle connection still fit to carry a request: the server has sent nothing on it, nor closed it. */
  #take(): Socket | undefined {
    for (let parked = this.#idle.pop(); parked !== undefined; parked = this.#idle.pop()) {
      const { socket, drop } = parked;
      socket.off('end', drop).off('close', drop);
      if (!socket.destroyed && socket.readyState === 'open' && socket.readableLength === 0) {
        // Referenced while it carries a request; undici unreferences it again once idle.
        socket.ref();
        this.#track(socket);
        return socket;
      }
      socket.destroy();
    }
    return undefined;
  }

  #track(socket: Socket): void {
    this.#inUse++;
    socket.once('close', () => {
      this.#inUse--;
    });
  }

  readonly #closeStale = (): void => {
    this.#sweep = undefined;
    const before = Date.now() - this.#idleMs;
    while (this.#idle.length > 0 && (this.#idle[0] as Parked).since <= before) (this.#idle[0] as Parked).drop();
    if (this.#idle.length > 0) this.#sweep = setTimeout(this.#closeStale, this.#idleMs).unref();
  };
}

/** An idle connection opened ahead; `drop` closes and forgets it. (The connector's own error listener stays on it.) */
interface Parked {
  readonly socket: Socket;
  readonly since: number;
  readonly drop: () => void;
}
