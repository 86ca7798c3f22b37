/**
 * Reads a JSON Lines body as it arrives, one value per complete line.
 * @module
 */

/**
 * Yields each line of a byte stream parsed as JSON, as soon as the line is
 * complete; a last line without a newline is yielded at the end.
 *
 * @example
 * ```ts
 * import { jsonLines } from "./json_lines.ts";
 * const body = new Response('{"a":1}\n{"a":2}\n').body!;
 * const values = [];
 * for await (const value of jsonLines(body)) values.push(value);
 * console.assert(values.length === 2);
 * ```
 */
export async function* jsonLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) yield JSON.parse(line);
      }
    }
    buffer += decoder.decode();
    if (buffer.trim()) yield JSON.parse(buffer);
  } finally {
    // Leaving the loop early (a stop) cancels the body, which ends the request.
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
