/**
 * A Chroma server for the tests, in a process of its own (the server's call
 * never returns): `deno run -A _chroma_server.ts <data folder> <port>`.
 *
 * The server is the Rust one inside the npm bindings that the `chromadb`
 * package's CLI runs. They are pinned to 0.1.3 (Chroma 1.0.0) here,
 * since later ones need GLIBC 2.38 or newer; the client's own optional
 * dependency resolves to a later one, so this loads the bindings by their
 * exact version rather than through the client's CLI. A test-only dependency:
 * nothing of svc imports this.
 * @module
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const [path, port] = Deno.args;
if (!path || !port) throw new Error("Usage: _chroma_server.ts <data folder> <port>");
// A native addon loads through require() only; the specifier pins the version.
const addon = fileURLToPath(import.meta.resolve("npm:chromadb-js-bindings-linux-x64-gnu@0.1.3"));
const bindings = createRequire(import.meta.url)(addon) as { cli(args: string[]): void };
bindings.cli([
  "chroma",
  "run",
  "--path",
  path,
  "--host",
  "127.0.0.1",
  "--port",
  port,
]);
