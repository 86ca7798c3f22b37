/**
 * `GET /documents/{id}/check`: whether svc can read an uploaded document,
 * asked as soon as it is uploaded, so that a file svc cannot read is named
 * then rather than when a chat is prepared. It reads the document as
 * preparing does, in the reader threads, and answers with its page count
 * only, not its text.
 * @module
 */
import { Hono } from "hono";
import { LocalDocument } from "../../components/core/document.ts";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { ApiEnv } from "./env.ts";
import type { DocumentCheck } from "./schemas.ts";
import { requestUser } from "./user.ts";

/** The route that reads a document to check it. */
export function documentCheckRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/documents/:id/check", async (c) => {
    const { database } = c.var.deps;
    const user = await requestUser(c);
    let row = await database.getDocument(user, c.req.param("id"));
    // An upload another replica received is read from this replica's copy.
    row = (await database.localFiles?.([row]))?.[0] ?? row;
    const present = await Deno.stat(row.metadata.path as string).then((i) => i.isFile, () => false);
    if (!present) {
      throw new SvcError(
        `The document ${quote(row.id)} has no content: its file was not uploaded ` +
          "(PUT /document with the parameters of POST /document)",
        { status: 404 },
      );
    }
    const pages = await new (c.var.deps.document ?? LocalDocument)(row).extractPages();
    const body: DocumentCheck = { pages: pages.length };
    return c.json(body);
  });
  return app;
}
