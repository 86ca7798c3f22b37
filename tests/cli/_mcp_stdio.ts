/**
 * The MCP SDK's client speaking to `svc mcp` as a child of tests/_process.ts:
 * a transport over the child's pipes, one JSON-RPC message a line, as MCP's
 * stdio transport frames them.
 * @module
 */
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
import type { JSONRPCMessage } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { type Child, denoArgs, MAIN, SECRETS, spawn } from "../_process.ts";

/** A connected client and the `svc mcp` child behind it; disposing of it ends both. */
export interface McpStdio extends AsyncDisposable {
  client: Client;
  child: Child;
}

/** Starts `svc mcp -c config` with `env` and connects the SDK's client to it. */
export async function connectMcpStdio(
  config: string,
  env: Record<string, string>,
): Promise<McpStdio> {
  let pending = "";
  const transport: Transport = {
    async start() {},
    async send(message: JSONRPCMessage) {
      const writer = child.process.stdin.getWriter();
      try {
        await writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
      } finally {
        writer.releaseLock();
      }
    },
    async close() {
      await child.process.stdin.close().catch(() => {});
      transport.onclose?.();
    },
  };
  const child = spawn(Deno.execPath(), denoArgs("run", "-A", MAIN, "mcp", "-c", config), {
    env: { ...SECRETS, ...env },
    stdin: "piped",
    onStdout(text) {
      pending += text;
      let end;
      while ((end = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, end).trim();
        pending = pending.slice(end + 1);
        if (line) transport.onmessage?.(JSON.parse(line));
      }
    },
  });
  const client = new Client({ name: "svc-tests", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    await child[Symbol.asyncDispose]();
    throw new Error(`svc mcp did not connect: ${(error as Error).message}\n${child.stderr()}`);
  }
  return {
    client,
    child,
    async [Symbol.asyncDispose]() {
      await client.close();
      await child[Symbol.asyncDispose]();
    },
  };
}
