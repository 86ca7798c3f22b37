/**
 * `DELETE /documents/{id}`: a user removes a document that no chat uses,
 * with its file, and so gets its bytes back in the storage quota.
 * @module
 */
import { Hono } from "hono";
import type { ApiEnv } from "./env.ts";
import { requestUser } from "./user.ts";

/**
 * The route that deletes a document: `null` once it and its file are gone;
 * 404 for an unknown or another user's document, 409 naming the chats that
 * still use it (delete them first), 503 or 507 when the disk refuses.
 */
export function documentDeletionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.delete("/documents/:id", async (c) => {
    const user = await requestUser(c);
    await c.var.deps.database.deleteDocument(user, c.req.param("id"));
    return c.json(null);
  });
  return app;
}
