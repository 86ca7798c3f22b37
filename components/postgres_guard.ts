/**
 * The client of the `postgres` package (3.4.9), guarded against the faults
 * of its connections, so that a server that goes away (a restart, a
 * failover, `pg_terminate_backend`) fails the statements in flight and
 * nothing else, and the pool connects again for the next ones.
 *
 * Four faults escape the package's own handling; each would end the whole
 * process, every request in flight with it, or leave a connection that
 * never works again:
 * - a transaction whose connection closed still writes its `ROLLBACK` (or
 *   `COMMIT`, or its work's next statement) to that connection, whose
 *   socket the package has set to `null` by then: the write throws from a
 *   timer of the package, which reaches no caller, and the connection keeps
 *   the write pending for ever. Such a transaction is left as it is: it
 *   fails at once with its connection's end, and sends nothing more;
 * - its socket reports an error (`read ECONNRESET`, `This socket has been
 *   ended by the other party`) after the package stopped listening to it:
 *   svc makes the sockets, and a socket's error that nobody listens to any
 *   more is dropped there, where it arises;
 * - a connection lost while it fetches the server's array types (which the
 *   package does on every new connection) rejects a promise nobody awaits:
 *   they are fetched once, by the pool's first connection;
 * - should a write to a closed socket happen all the same, the guard of last
 *   resort drops its `TypeError`, recognised by where it is thrown (the
 *   package's `nextWrite`, in the very file the process loaded) and by
 *   nothing else.
 *
 * The statements concerned had failed already (their callers were told the
 * connection closed), so nothing is lost by dropping any of them. And a
 * `COPY` that PostgreSQL refuses once its last row was sent would leave its
 * caller waiting for ever: {@linkcode copyIn} runs one so that the refusal
 * reaches it.
 * @module
 */
import type * as Postgres from "npm:postgres@3.4.9";
import net from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { importPackage } from "./packages.ts";

/** The package's connection options, as its socket factory receives them. */
interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * A client of the database at `url`, whose sockets and writes are guarded
 * (see the module's documentation), once it answered a first query;
 * `options` as the package takes them.
 *
 * @throws {Error} the package's, when the server cannot be reached
 *
 * @example
 * ```ts ignore
 * const sql = await guardedPostgres("postgresql://postgres@127.0.0.1/svc", { max: 4 });
 * await sql`SELECT 1`;
 * await sql.end();
 * ```
 */
export async function guardedPostgres(
  url: string,
  options: Postgres.Options<Record<string, Postgres.PostgresType>> = {},
): Promise<Postgres.Sql> {
  const { default: postgres } = await importPackage<typeof Postgres>("postgres");
  guardClosedSockets(packageFolder(postgres));
  // The package tries the hosts of a multi-host URL in turn; so do these sockets.
  let next = 0;
  const socket = (parsed: SocketOptions) => {
    const made = new GuardedSocket();
    if (parsed.path) return made.connect(parsed.path);
    const index = next++ % parsed.host.length;
    const host = parsed.host[index]!;
    const port = parsed.port[index] ?? parsed.port[0]!;
    // The package names the host and port of a connection that failed from these.
    return Object.assign(made.connect(port, host), { host, port });
  };
  const sql = postgres(url, {
    // The package's default waits up to 20 s between tries after a few failed connections,
    // and a request waits with them: after an outage each waits at most RETRY_CAP_SECONDS.
    backoff: (retries: number) => Math.min(3 ** retries / 100, RETRY_CAP_SECONDS),
    ...options,
    socket: socket as unknown as (options: unknown) => net.Socket,
  } as Postgres.Options<Record<string, Postgres.PostgresType>>) as unknown as Postgres.Sql;
  try {
    await sql`SELECT 1`;
  } catch (error) {
    await sql.end({ timeout: 0 }).catch(() => {});
    throw error;
  }
  guardTransactions(sql);
  // Each new connection would fetch the array types again, in a promise of the package's that
  // nobody awaits: a connection lost meanwhile would end the process. The first connection's
  // types are the pool's, so later connections do without.
  sql.options.fetch_types = false;
  return sql;
}

/**
 * Makes `sql.begin` leave a transaction whose connection was lost as it is:
 * the caller hears of the loss at once, and neither its work's later
 * statements nor the package's `ROLLBACK` or `COMMIT` go to the dead
 * connection.
 */
function guardTransactions(sql: Postgres.Sql): void {
  const begin = sql.begin;
  type Work = (tx: Postgres.TransactionSql) => unknown;
  const guarded = (options: string | Work, work?: Work) => {
    const fn = typeof options === "function" ? options : work!;
    let lost: unknown;
    let loss!: (error: unknown) => void;
    const lossHeard = new Promise<never>((_, reject) => loss = reject);
    lossHeard.catch(() => {});
    const refuseOnceLost = (f: unknown, self: unknown) => (...args: unknown[]) => {
      if (lost !== undefined) throw lost;
      return Reflect.apply(f as (...args: unknown[]) => unknown, self, args);
    };
    const outcome = begin(typeof options === "string" ? options : "", (tx) =>
      // Settled only while the connection lives: the package then sends COMMIT or ROLLBACK.
      new Promise((resolve, reject) => {
        const statements = new Proxy(tx, {
          apply: (target, self, args) => refuseOnceLost(target, self)(...args),
          get: (target, key) => {
            const value = Reflect.get(target, key);
            return key === "unsafe" ? refuseOnceLost(value, target) : value;
          },
        });
        // The package's own form too: work that gives its statements as an array.
        Promise.resolve().then(() => {
          const result = fn(statements);
          return Array.isArray(result) ? Promise.all(result) : result;
        }).then(
          (value) => {
            if (lost === undefined) resolve(value);
          },
          (error) => {
            if (lost === undefined && !isConnectionFault(error)) return reject(error);
            lost ??= error;
            loss(error);
          },
        );
      }));
    // Its connection's end rejects the transaction, before any other of its work is done.
    outcome.catch((error) => lost ??= error);
    return Promise.race([outcome, lossHeard]);
  };
  sql.begin = guarded as typeof sql.begin;
}

/**
 * Whether a statement failed because its connection did (rather than the
 * statement): the package's own connection errors (`CONNECTION_CLOSED`, …),
 * a socket's (`ECONNRESET`, `EPIPE`, `ECONNREFUSED`, …), a connection
 * exception (class 08), or a server shutting down or starting (57P01–57P03).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isConnectionFault } from "./postgres_guard.ts";
 * assert.equal(isConnectionFault(Object.assign(new Error(), { code: "ECONNRESET" })), true);
 * assert.equal(isConnectionFault(Object.assign(new Error(), { code: "23505" })), false);
 * ```
 */
export function isConnectionFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return code.startsWith("CONNECT") || /^E[A-Z]+$/.test(code) || code.startsWith("08") ||
    /^57P0[1-3]$/.test(code);
}

/**
 * The words for a connection that failed, where the client's own say little
 * (`write CONNECTION_CLOSED 127.0.0.1:5432`); `undefined` for the server's
 * own messages (it is shutting down, starting up), which say it well.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectionFaultWords } from "./postgres_guard.ts";
 * const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
 * assert.equal(connectionFaultWords(reset), "the connection to the server was lost");
 * ```
 */
export function connectionFaultWords(error: unknown): string | undefined {
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  if (code === "ECONNREFUSED") return "the server refuses connections (is it running?)";
  if (code === "CONNECT_TIMEOUT" || code === "ETIMEDOUT") {
    return "the server did not answer in time";
  }
  if (/^CONNECTION_|^ECONNRESET$|^EPIPE$/.test(code)) {
    return "the connection to the server was lost";
  }
  return undefined;
}

/** The longest wait between two tries to connect, in seconds. */
const RETRY_CAP_SECONDS = 1;

/**
 * A socket whose error is dropped when nobody listens to it any more, rather
 * than thrown: the package stops listening to a socket once it closed, and
 * every statement on it failed with its close, so a late error (a reset, a
 * write after the server's end) has nobody left to tell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GuardedSocket } from "./postgres_guard.ts";
 * const socket = new GuardedSocket();
 * assert.equal(socket.emit("error", new Error("read ECONNRESET")), false);
 * ```
 */
export class GuardedSocket extends net.Socket {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error" && this.listenerCount("error") === 0) return false;
    return super.emit(event, ...args);
  }
}

/**
 * The folder the package's modules were loaded from, as stacks name it
 * (`file:///…/postgres/3.4.9/src`, or `…/postgres@3.4.9/node_modules/postgres/src`
 * under a `node_modules` folder): read off an error thrown inside the package.
 */
function packageFolder(postgres: typeof Postgres.default): string | undefined {
  try {
    postgres.toCamel(null as unknown as string);
  } catch (error) {
    const frame = /\((\S+)\/types\.js:\d+:\d+\)/.exec((error as Error).stack ?? "");
    return frame?.[1];
  }
  return undefined;
}

const guarded = new Set<string>();

/**
 * Installs, once per folder of the package, the guard of last resort: it
 * drops the package's write to a closed socket, thrown or rejected, and no
 * other error.
 */
export function guardClosedSockets(folder: string | undefined): void {
  if (folder === undefined || guarded.has(folder)) return;
  guarded.add(folder);
  globalThis.addEventListener("error", (event) => {
    if (isClosedSocketWrite(event.error, folder)) event.preventDefault();
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (isClosedSocketWrite(event.reason, folder)) event.preventDefault();
  });
}

/**
 * Whether the error is the package's write to a closed socket: the
 * `TypeError` of a `null` socket, thrown first by `nextWrite` in the
 * package's `connection.js` under `folder`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isClosedSocketWrite } from "./postgres_guard.ts";
 * const folder = "file:///cache/postgres/3.4.9/src";
 * const error = new TypeError("Cannot read properties of null (reading 'write')");
 * error.stack = `${error.message}\n    at Immediate.nextWrite (${folder}/connection.js:255:22)`;
 * assert.equal(isClosedSocketWrite(error, folder), true);
 * assert.equal(isClosedSocketWrite(error, "file:///elsewhere/src"), false);
 * ```
 */
export function isClosedSocketWrite(error: unknown, folder: string): boolean {
  if (!(error instanceof TypeError)) return false;
  if (error.message !== "Cannot read properties of null (reading 'write')") return false;
  const first = /^\s+at (.*)$/m.exec(error.stack ?? "")?.[1] ?? "";
  return /^(?:\S+\.)?nextWrite \(/.test(first) &&
    first.includes(`(${folder}/connection.js:`);
}

/**
 * Runs a `COPY ... FROM STDIN` with the bytes of `chunks`, and settles once
 * PostgreSQL took them or refused them. postgres.js finishes the COPY's
 * stream only when PostgreSQL took the rows, and when PostgreSQL refuses them
 * after the last was sent (a vector it cannot read, a full disk, a lost
 * connection) it rejects the query, whose promise had already given the
 * stream, and leaves the stream waiting: that rejection is taken here.
 *
 * @throws the error of PostgreSQL or of the connection
 */
export async function copyIn(
  query: Postgres.PendingQuery<Postgres.Row[]>,
  chunks: Iterable<Uint8Array>,
): Promise<void> {
  const { promise: refused, reject: refuse } = Promise.withResolvers<never>();
  // Settled also when the COPY is refused before it starts, which `writable()` then throws.
  refused.catch(() => {});
  const own = query as unknown as { reject(error: unknown): void };
  const reject = own.reject;
  own.reject = (error) => {
    refuse(error);
    reject(error);
  };
  const copy = await query.writable();
  await Promise.race([pipeline(Readable.from(chunks), copy), refused]);
}
