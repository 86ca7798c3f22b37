/**
 * The `svc` program.
 * @module
 */
import { run } from "./cli/mod.ts";

if (import.meta.main) {
  // SIGINT and SIGTERM stop the servers gracefully: requests in flight finish, the database closes.
  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stop.abort());
  }
  Deno.exit(await run(Deno.args, undefined, { signal: stop.signal }));
}
