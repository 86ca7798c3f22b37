import assert from "node:assert/strict";
import net from "node:net";
import {
  guardClosedSockets,
  guardedPostgres,
  GuardedSocket,
  isClosedSocketWrite,
  isConnectionFault,
} from "../components/postgres_guard.ts";
import { connect, postgresTest } from "./_postgres.ts";

/** The postgres package's write to a closed socket, as it throws it from `folder`. */
function closedSocketWrite(folder: string): TypeError {
  const error = new TypeError("Cannot read properties of null (reading 'write')");
  error.stack = `${error.message}\n    at Immediate.nextWrite (${folder}/connection.js:255:22)\n` +
    "    at Immediate.callback (ext:deno_node/internal/timers.mjs:4:3069)";
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

Deno.test("guardClosedSockets() drops the package's write to a closed socket from the folder it was loaded from, whichever layout, and no other error", () => {
  const cache = "file:///root/.cache/deno/npm/registry.npmjs.org/postgres/3.4.9/src";
  const modules = "file:///app/node_modules/.deno/postgres@3.4.9/node_modules/postgres/src";
  guardClosedSockets(cache);
  guardClosedSockets(modules);
  guardClosedSockets(cache);
  const both = { rejected: true, thrown: true };
  assert.deepEqual(prevented(closedSocketWrite(cache)), both);
  assert.deepEqual(prevented(closedSocketWrite(modules)), both);
  const neither = { rejected: false, thrown: false };
  assert.deepEqual(prevented(closedSocketWrite("file:///elsewhere/src")), neither);
  // The same message from the application's own code.
  const own = new TypeError("Cannot read properties of null (reading 'write')");
  assert.deepEqual(prevented(own), neither);
  // The package's frame further down a stack that another function threw from.
  const deeper = closedSocketWrite(cache);
  deeper.stack = deeper.stack!.replace(
    "    at Immediate",
    "    at mine (file:///app/x.ts:1:1)\n$&",
  );
  assert.equal(isClosedSocketWrite(deeper, cache), false);
  assert.deepEqual(prevented(new Error("the database is down")), neither);
});

Deno.test("GuardedSocket drops an error nobody listens to any more, as a plain socket does not", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept();
  const socket = new GuardedSocket();
  try {
    await new Promise<void>((resolve) => socket.connect(listener.addr.port, "127.0.0.1", resolve));
    let heard: unknown;
    socket.on("error", (error) => heard = error);
    const reset = new Error("read ECONNRESET");
    assert.equal(socket.emit("error", reset), true);
    assert.equal(heard, reset);
    socket.removeAllListeners();
    assert.equal(
      socket.emit("error", new Error("This socket has been ended by the other party")),
      false,
    );
    assert.throws(() => new net.Socket().emit("error", new Error("read ECONNRESET")), /ECONNRESET/);
  } finally {
    socket.destroy();
    (await accepted).close();
    listener.close();
  }
});

/** The first answer of `query` in `tries` tries. */
async function answer<T>(query: () => Promise<T>, tries: number): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await query();
    } catch (error) {
      if (attempt === tries) throw error;
    }
  }
}

postgresTest(
  "guardedPostgres() fails a transaction whose connection ends, sends it nothing more, and connects again with the array types it fetched once",
  async (database) => {
    const sql = await guardedPostgres(database.url, {
      max: 1,
      connect_timeout: 2,
      onnotice: () => {},
    });
    const admin = await connect(database.url);
    try {
      assert.equal(sql.options.fetch_types, false);
      let terminating: Promise<unknown> | undefined;
      const failed = await sql.begin(async (tx) => {
        const [row] = await tx`SELECT pg_backend_pid() AS pid`;
        // The server ends the connection in the middle of a statement.
        const sleeping = tx`SELECT pg_sleep(5)`.execute();
        terminating = admin`SELECT pg_terminate_backend(${row!.pid}, 5000)`.execute();
        await sleeping;
      }).then(() => undefined, (error) => error);
      await terminating;
      assert.equal(isConnectionFault(failed), true, String(failed));
      // The package may hand the connection's last error, which the server sent as it ended
      // it, to the next statement of the same connection: the one after it is answered.
      const [row] = await answer(
        () => sql`SELECT array_length(${["a", "b", "c"]}::text[], 1) AS n`,
        2,
      );
      assert.equal(row!.n, 3);
    } finally {
      await admin.end();
      await sql.end({ timeout: 1 });
    }
  },
);
