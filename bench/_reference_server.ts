/**
 * The reference for `bench/load.ts`: a bare `Deno.serve` that answers
 * `POST /chats/<id>/answer` with the lines svc's test assistant streams, with
 * the same pauses, and `GET /health`, with no database, no authentication and
 * no framework. Run as `deno run -A bench/_reference_server.ts <port>`.
 * @module
 */

const port = Number(Deno.args[0]);
const encoder = new TextEncoder();
const headers = { "content-type": "application/x-ndjson" };

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (request) => {
  const url = new URL(request.url);
  if (url.pathname === "/health") return Response.json({ status: "ok" });
  await request.body?.cancel();
  const chunks = Number(url.searchParams.get("chunks") ?? 20);
  const delay = Number(url.searchParams.get("delay_ms") ?? 20);
  const head = {
    id: crypto.randomUUID(),
    content: "",
    role: "assistant",
    sources: null as unknown,
    timestamp: new Date().toISOString(),
  };
  let i = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i === chunks) return controller.close();
      await new Promise((resolve) => timer = setTimeout(resolve, delay));
      controller.enqueue(encoder.encode(`${JSON.stringify({ ...head, content: `${i++} ` })}\n`));
    },
    cancel: () => clearTimeout(timer),
  });
  return new Response(body, { headers });
});
