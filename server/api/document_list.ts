/**
 * `GET /documents`: the signed-in user's own documents, newest first, with
 * their sizes, their pages once a chat read them, and the chats that use them.
 * @module
 */
import { Hono } from "hono";
import type { ApiEnv } from "./env.ts";
import { requestUser } from "./user.ts";

/** The route that lists the user's documents. */
export function documentListRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/documents", async (c) => {
    const user = await requestUser(c);
    return c.json(await c.var.deps.database.listDocuments(user));
  });
  return app;
}
