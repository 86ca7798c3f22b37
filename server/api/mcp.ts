/**
 * `POST /mcp`: the MCP server of server/mcp.ts over Streamable HTTP, for the
 * user of the request's bearer (an API key, or a session token). Each request
 * is answered by a server of its own, without a session (the stateless mode
 * of the transport), so that any process sharing the database answers it;
 * replies are plain JSON, never a stream.
 * @module
 */
import { Hono } from "hono";
import type * as Http from "npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js";
import { importPackage } from "../../components/packages.ts";
import { createMcpServer } from "../mcp.ts";
import type { ApiEnv } from "./env.ts";
import { requestUser } from "./user.ts";

/** The route of MCP over Streamable HTTP. */
export function mcpRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post("/mcp", async (c) => {
    const user = await requestUser(c);
    const { WebStandardStreamableHTTPServerTransport } = await importPackage<typeof Http>(
      "@modelcontextprotocol/sdk",
      "server/webStandardStreamableHttp.js",
    );
    const server = await createMcpServer(c.var.deps, user, { requestId: c.var.requestId });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return app;
}
