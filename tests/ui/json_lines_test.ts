import assert from "node:assert/strict";
import { jsonLines } from "../../ui/json_lines.ts";

function streamOf(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) {
        controller.enqueue(typeof part === "string" ? new TextEncoder().encode(part) : part);
      }
      controller.close();
    },
  });
}

Deno.test("jsonLines() yields each line once complete, across chunk and character boundaries", async () => {
  const euro = new TextEncoder().encode('{"c":"€"}\n');
  const values = [];
  for await (
    const value of jsonLines(
      streamOf('{"a":', '1}\n{"a":2}\n\n', euro.slice(0, 7), euro.slice(7), '{"a":3}'),
    )
  ) {
    values.push(value);
  }
  assert.deepEqual(values, [{ a: 1 }, { a: 2 }, { c: "€" }, { a: 3 }]);
});

Deno.test("jsonLines() cancels the body when the reader stops early", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode('{"a":1}\n'));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const _ of jsonLines(body)) break;
  assert.equal(cancelled, true);
});
