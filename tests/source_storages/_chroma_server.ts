/**
 * A Chroma server for the tests, in a process of its own (the server's call
 * never returns): `deno run -A _chroma_server.ts <data folder> <port>`.
 *
 * The server is the Rust one inside the npm bindings that the `chromadb`
 * package's CLI runs. They are pinned to 0.1.3 (Chroma 1.0.0) in deno.json,
 * since later ones need GLIBC 2.38 or newer; the client's own optional
 * dependency resolves to a later one, so this loads the bindings by their
 * package name rather than through the client's CLI. A test-only dependency:
 * nothing of svc imports this.
 * @module
 */
import { createRequire } from "node:module";

const [path, port] = Deno.args;
if (!path || !port) throw new Error("Usage: _chroma_server.ts <data folder> <port>");
// require() needs the package's real name: an import-map alias does not resolve here.
const bindings = createRequire(import.meta.url)("chromadb-js-bindings-linux-x64-gnu") as {
  cli(args: string[]): void;
};
bindings.cli(["chroma", "run", "--path", path, "--host", "127.0.0.1", "--port", port]);
