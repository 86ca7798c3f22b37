/**
 * A guard against one fault of the `postgres` package (3.4.9): when the
 * server ends a connection that a transaction holds (a restart, a failover,
 * `pg_terminate_backend`, a busy machine), the package may still write the
 * transaction's next statement or its `ROLLBACK` to the closed socket, from
 * a timer or from a promise of its own, and the `TypeError` it throws there
 * cannot be caught by any caller: it would end the whole process, every
 * request in flight with it. The statement had failed already (its caller
 * was told the connection closed), so nothing is lost by dropping the error;
 * the guard drops exactly that one. The API's database and the Postgres
 * source storage install it.
 * @module
 */

let installed = false;

/** Installs the guard once for the process. */
export function guardClosedSockets(): void {
  if (installed) return;
  installed = true;
  globalThis.addEventListener("error", (event) => {
    if (isClosedSocketWrite(event.error)) event.preventDefault();
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (isClosedSocketWrite(event.reason)) event.preventDefault();
  });
}

/**
 * Whether the error is the package's write to a closed socket.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isClosedSocketWrite } from "./postgres_guard.ts";
 * const error = new TypeError("Cannot read properties of null (reading 'write')");
 * error.stack = `${error.message}\n    at nextWrite (file:///x/postgres@3.4.9/src/connection.js:255:22)`;
 * assert.equal(isClosedSocketWrite(error), true);
 * assert.equal(isClosedSocketWrite(new TypeError("Cannot read properties of null (reading 'write')")), false);
 * ```
 */
export function isClosedSocketWrite(error: unknown): boolean {
  return error instanceof TypeError && /\(reading 'write'\)/.test(error.message) &&
    /nextWrite .*postgres@/.test(error.stack ?? "");
}
