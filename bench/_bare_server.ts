/**
 * The reference for `bench/start_bench.ts`: the least a server started with
 * `deno run` does, a bare `Deno.serve` answering `GET /health`, started the
 * same way as `svc api`. Run as `deno run -A bench/_bare_server.ts <port>`.
 * @module
 */

const port = Number(Deno.args[0]);

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, () => Response.json({ status: "ok" }));
