/**
 * Slow-drip uploads for the reliability tests and `bench/attacks.ts`: an upload that sends all
 * but its file at once, then a byte now and then, holding an upload slot as long as the server
 * lets it.
 * @module
 */
import {
  multipart,
  offsetOf,
  rawRequest,
  type RawResponse,
  readResponse,
  writeAll,
} from "./_raw_http.ts";
import { type Client, pause } from "./_server.ts";

const FILE = "X".repeat(100_000);

/**
 * An upload of `client` to the server on `port` that sends all but its file at once, then one
 * byte of the file every `every` milliseconds until the server answers; the answer.
 */
export async function drip(
  client: Client,
  port: number,
  every = 100,
): Promise<RawResponse> {
  const { parameters } = await client.call("POST", "/document", { name: "drip.md" });
  const { body, type } = multipart([
    { name: "token", value: parameters.data.token },
    { name: "file", filename: "drip.md", content: FILE },
  ]);
  const request = rawRequest("PUT", "/document", { headers: { "content-type": type }, body });
  const start = offsetOf(request.bytes, FILE.slice(0, 16));
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  await writeAll(connection, request.bytes.subarray(0, start));
  let answered = false;
  const sending = (async () => {
    for (let at = start; !answered; at++) {
      await pause(every);
      if (answered) break;
      await writeAll(connection, request.bytes.subarray(at, at + 1)).catch(() => answered = true);
    }
  })();
  const response = await readResponse(connection);
  answered = true;
  await sending;
  connection.close();
  return response;
}
