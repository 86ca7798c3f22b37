/**
 * A local HTTP server for assistant tests: it answers each request with the
 * next scripted reply, records what it was sent, and streams bodies piece by
 * piece so that tests can see what the client read and when it hung up.
 * @module
 */

/** A request as the server received it. */
export interface Recorded {
  method: string;
  /** The path, without the query. */
  path: string;
  search: string;
  headers: Headers;
  /** The body parsed as JSON, else its text. */
  body: unknown;
}

/** Makes the response to a request. */
export type Reply = (server: FakeServer, request: Request) => Response | Promise<Response>;

/** Options of {@linkcode FakeServer.feed}. */
export interface FeedOptions {
  /**
   * The wait before each piece, in milliseconds.
   * @default {5}
   */
  delay?: number;
  /**
   * Keep the body open after the last piece, until the client hangs up.
   * @default {false}
   */
  hold?: boolean;
  /**
   * Pieces from `after` on wait for `open` too: a test opens it once it saw
   * what the pieces before brought, which then came while the rest was held.
   */
  gate?: { after: number; open: Promise<void> };
}

/** A body sent piece by piece. */
export interface Feed {
  /** How many pieces were sent so far. */
  readonly sent: number;
  /** How many pieces there are. */
  readonly total: number;
  /** Whether the client hung up before the body ended. */
  readonly cancelled: boolean;
  /** Settles when the client hangs up before the body ends. */
  readonly hungUp: Promise<void>;
}

/** The fake server; dispose of it to stop it. */
export class FakeServer implements AsyncDisposable {
  /** The requests received, in order. */
  readonly requests: Recorded[] = [];
  /** The bodies fed, in order. */
  readonly feeds: Feed[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #replies: readonly Reply[];
  readonly #closers: (() => void)[] = [];

  /** Starts a server on a free port of 127.0.0.1; request n gets `replies[n]`, or the last one. */
  constructor(replies: readonly Reply[]) {
    this.#replies = replies;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => this.#handle(request),
    );
  }

  /** The server's base URL, without a final slash. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** The last request; fails when there was none. */
  get last(): Recorded {
    const request = this.requests.at(-1);
    if (!request) throw new Error("The fake server received no request");
    return request;
  }

  /** A streamed response whose body is `pieces`, each after `options.delay`. */
  feed(
    pieces: readonly string[],
    init: ResponseInit & FeedOptions = {},
  ): Response {
    const { delay = 5, hold = false, gate, ...responseInit } = init;
    const encoder = new TextEncoder();
    let stop!: () => void;
    const hungUp = new Promise<void>((resolve) => stop = resolve);
    let closed = false;
    const feed = { sent: 0, total: pieces.length, cancelled: false, hungUp };
    let close = () => {};
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        close = () => {
          if (!closed) controller.close();
          closed = true;
        };
        for (const [i, piece] of pieces.entries()) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          if (gate && i >= gate.after) await gate.open;
          if (feed.cancelled) return;
          controller.enqueue(encoder.encode(piece));
          feed.sent++;
        }
        if (!hold) close();
      },
      cancel() {
        closed = true;
        feed.cancelled = true;
        stop();
      },
    });
    this.feeds.push(feed);
    this.#closers.push(() => close());
    return new Response(body, responseInit);
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = await request.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    this.requests.push({
      method: request.method,
      path: url.pathname,
      search: url.search,
      headers: request.headers,
      body,
    });
    const reply = this.#replies[Math.min(this.requests.length, this.#replies.length) - 1];
    if (!reply) return new Response("No reply scripted", { status: 599 });
    return await reply(this, request);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const close of this.#closers) close();
    await this.#server.shutdown();
  }
}

/**
 * A server that reads what comes and never answers. It works on TCP, not
 * HTTP, because `Deno.serve` does not always notice that a client hung up
 * while a reply is pending.
 */
export class SilentServer implements AsyncDisposable {
  /** Everything received, as text. */
  received = "";
  /** Settles when the first bytes of a request arrive. */
  readonly requested: Promise<void>;
  /** Settles when a client closes its connection. */
  readonly hungUp: Promise<void>;
  readonly #request = Promise.withResolvers<void>();
  readonly #listener: Deno.TcpListener;
  readonly #connections = new Set<Deno.Conn>();
  readonly #work: Promise<void>[] = [];

  constructor() {
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let hangUp!: () => void;
    this.hungUp = new Promise((resolve) => hangUp = resolve);
    this.requested = this.#request.promise;
    this.#work.push(this.#accept(hangUp));
  }

  /** The server's base URL, without a final slash. */
  get url(): string {
    return `http://127.0.0.1:${this.#listener.addr.port}`;
  }

  async #accept(hangUp: () => void): Promise<void> {
    try {
      for await (const connection of this.#listener) {
        this.#connections.add(connection);
        this.#work.push(this.#read(connection, hangUp));
      }
    } catch {
      // the listener was closed
    }
  }

  async #read(connection: Deno.Conn, hangUp: () => void): Promise<void> {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(4096);
    try {
      for (let n = await connection.read(buffer); n !== null; n = await connection.read(buffer)) {
        this.received += decoder.decode(buffer.subarray(0, n), { stream: true });
        this.#request.resolve();
      }
      hangUp();
    } catch {
      // closed by the disposal
    }
    this.#connections.delete(connection);
    try {
      connection.close();
    } catch {
      // closed already
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#listener.close();
    for (const connection of this.#connections) connection.close();
    await Promise.all(this.#work);
  }
}

/** The URL of a port on 127.0.0.1 where nothing listens. */
export async function closedUrl(): Promise<string> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  await Promise.resolve();
  return `http://127.0.0.1:${port}`;
}

/** Settles with `promise`, or rejects after `milliseconds`. */
export function within<T>(promise: Promise<T>, milliseconds: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took over ${milliseconds} ms`)),
      milliseconds,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
