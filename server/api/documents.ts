/**
 * Document routes: register a document (`POST /document`), then upload its
 * content with the returned parameters (`PUT /document`).
 * @module
 */
import { Hono } from "hono";
import { join } from "node:path";
import { handlerFor } from "../../components/documents/mod.ts";
import { SvcError } from "../../components/core/errors.ts";
import { jsonBody } from "./body.ts";
import type { ApiEnv } from "./env.ts";
import { Registration } from "./schemas.ts";
import { receiveUpload, tooLarge } from "./upload.ts";

/** The routes of `/document`. */
export function documentRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/document", async (c) => {
    const { deps } = c.var;
    const user = await deps.authentication.getUser(c.req.raw);
    const { name } = await jsonBody(c, Registration);
    handlerFor(name);
    const id = crypto.randomUUID();
    // The stored path comes from the id alone, never from the client's name.
    const metadata = { path: join(deps.localRoot, "documents", id) };
    await deps.database.addDocument(user, { id, name, metadata });
    return c.json({
      document: { id, name },
      parameters: {
        method: "PUT",
        url: `${deps.url}/document`,
        data: { token: await deps.uploadTokens.sign(user, id) },
      },
    });
  });

  app.put("/document", async (c) => {
    const { deps } = c.var;
    await using upload = await receiveUpload(c.req.raw, {
      maxSize: deps.maxUploadSize,
      folder: join(deps.localRoot, "documents"),
    });
    const { user, id } = await deps.uploadTokens.verify(upload.fields.token);
    if (!upload.file) {
      throw new SvcError('The upload has no file part named "file"', { status: 422 });
    }
    if (upload.tooLarge) throw tooLarge(deps.maxUploadSize);
    const document = await deps.database.getDocument(user, id);
    await Deno.rename(upload.file, document.metadata.path as string);
    upload.file = undefined;
    return c.json({ id: document.id, name: document.name });
  });

  return app;
}
