import assert from "node:assert/strict";
import { guardClosedSockets } from "../components/postgres_guard.ts";

/** The postgres package's write to a closed socket, as it throws it. */
function closedSocketWrite(): TypeError {
  const error = new TypeError("Cannot read properties of null (reading 'write')");
  error.stack =
    `${error.message}\n    at nextWrite (file:///x/postgres@3.4.9/src/connection.js:255:22)`;
  return error;
}

/** Whether a listener kept the process from ending on `reason`, rejected or thrown. */
function prevented(reason: unknown): { rejected: boolean; thrown: boolean } {
  const rejected = !globalThis.dispatchEvent(
    new PromiseRejectionEvent("unhandledrejection", {
      promise: Promise.resolve(),
      reason,
      cancelable: true,
    }),
  );
  const thrown = !globalThis.dispatchEvent(
    new ErrorEvent("error", { error: reason, cancelable: true }),
  );
  return { rejected, thrown };
}

Deno.test("guardClosedSockets() drops the postgres package's write to a closed socket, thrown or rejected, and no other error", () => {
  guardClosedSockets();
  guardClosedSockets();
  assert.deepEqual(prevented(closedSocketWrite()), { rejected: true, thrown: true });
  const other = new TypeError("Cannot read properties of null (reading 'write')");
  assert.deepEqual(prevented(other), { rejected: false, thrown: false });
  assert.deepEqual(prevented(new Error("the database is down")), {
    rejected: false,
    thrown: false,
  });
});
