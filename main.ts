/**
 * The `svc` program. `svc --version` is answered before the commands are
 * loaded, so that it costs little more than starting Deno.
 *
 * Put on the PATH from JSR with `deno install -g -A --name svc jsr:@svc/svc/cli`, or from a clone
 * with `deno task install` (which runs it on a copy of the clone's deno.json and deno.lock).
 *
 * @example
 * ```ts
 * // Once installed, svc is a command like any other.
 * const { stdout } = await new Deno.Command("svc", { args: ["--version"] }).output();
 * console.log(new TextDecoder().decode(stdout)); // svc 0.3.0
 * ```
 * @module
 */
import { versionAsked } from "./cli/version_line.ts";

/**
 * The commands, imported by a name Deno does not read ahead of time: Deno
 * prepares every module a literal import names, dynamic ones included,
 * before the program starts, which would cost `svc --version` the whole
 * program. `deploy/compile.ts` includes it in the binary.
 */
const COMMANDS = "./cli/mod.ts";

if (import.meta.main) {
  const version = versionAsked(Deno.args);
  if (version !== undefined) {
    Deno.stdout.writeSync(new TextEncoder().encode(`${version}\n`));
    Deno.exit(0);
  }
  // SIGINT and SIGTERM stop the servers gracefully: requests in flight finish, the database closes.
  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stop.abort());
  }
  const { run }: typeof import("./cli/mod.ts") = await import(COMMANDS);
  Deno.exit(await run(Deno.args, undefined, { signal: stop.signal }));
}
