/**
 * The `svc` program.
 * @module
 */
import { run } from "./cli/mod.ts";

if (import.meta.main) Deno.exit(await run(Deno.args));
