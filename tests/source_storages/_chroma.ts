/**
 * A real Chroma server for a test, on a free port with an empty data folder.
 * Tests hand its URL to the storage (`new Chroma({ url })`) rather than through
 * env `SVC_CHROMA_URL`, which test files running in parallel would share.
 * @module
 */
import { denoArgs, freePort, spawn, waitForUrl } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";

const SERVER = new URL("./_chroma_server.ts", import.meta.url).pathname;

/** A running Chroma server. */
export interface ChromaServer extends AsyncDisposable {
  url: string;
  /** Stops the server and starts it again on the same data and port. */
  restart(): Promise<void>;
}

/** Starts a Chroma server; disposing of it stops it and removes its data. */
export async function startChroma(): Promise<ChromaServer> {
  const dir = await tmpDir();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let server = await serve(`${dir.path}/data`, port);
  return {
    url,
    async restart() {
      await server.stop();
      server = await serve(`${dir.path}/data`, port);
    },
    async [Symbol.asyncDispose]() {
      await server.stop();
      await dir[Symbol.asyncDispose]();
    },
  };
}

async function serve(path: string, port: number): Promise<{ stop(): Promise<void> }> {
  const child = spawn(Deno.execPath(), denoArgs("run", "-A", SERVER, path, String(port)), {
    env: { NO_COLOR: "1" },
    // The server runs as long as the test that uses it.
    deadline: 600_000,
  });
  try {
    await waitForUrl(`http://127.0.0.1:${port}/api/v2/heartbeat`, child);
  } catch (error) {
    await child[Symbol.asyncDispose]();
    throw error;
  }
  return { stop: async () => void await child.stop() };
}
