/**
 * A real Chroma server for a test, on a free port with an empty data folder.
 * Tests hand its URL to the storage (`new Chroma({ url })`) rather than through
 * env `SVC_CHROMA_URL`, which test files running in parallel would share.
 * @module
 */
import { collect, freePort, terminate, waitFor } from "../dist/_smoke.ts";
import { tmpDir } from "../test_utils.ts";

const SERVER = new URL("./_chroma_server.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

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
  let server = await spawn(`${dir.path}/data`, port);
  return {
    url,
    async restart() {
      await server.stop();
      server = await spawn(`${dir.path}/data`, port);
    },
    async [Symbol.asyncDispose]() {
      await server.stop();
      await dir[Symbol.asyncDispose]();
    },
  };
}

async function spawn(path: string, port: number): Promise<{ stop(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, SERVER, path, String(port)],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = [collect(child.stdout), collect(child.stderr)];
  const stop = async () => {
    await terminate(child);
    await Promise.all(output.map((stream) => stream.done));
  };
  try {
    await waitFor(`http://127.0.0.1:${port}/api/v2/heartbeat`, () => output[1]!.text(), 30);
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}
