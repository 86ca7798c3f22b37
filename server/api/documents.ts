/**
 * Document routes: register a document (`POST /document`), then upload its
 * content with the returned parameters (`PUT /document`).
 * @module
 */
import { Hono } from "hono";
import { join } from "node:path";
import { handlerFor } from "../../components/documents/mod.ts";
import { quote, SvcError } from "../../components/core/errors.ts";
import { jsonBody } from "./body.ts";
import type { ApiEnv } from "./env.ts";
import { Registration } from "./schemas.ts";
import { receiveUpload, tooLarge } from "./upload.ts";
import { requestUser } from "./user.ts";

/** The routes of `/document`. */
export function documentRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/document", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
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
    c.set("user", user);
    if (!upload.file) {
      throw new SvcError('The upload has no file part named "file"', { status: 422 });
    }
    if (upload.tooLarge) throw tooLarge(deps.maxUploadSize);
    const document = await deps.database.getDocument(user, id);
    await keepOnce(upload.file, document.metadata.path as string, id);
    return c.json({ id: document.id, name: document.name });
  });

  return app;
}

/**
 * Puts the uploaded file in its place unless the document has its file already: a token uploads
 * once, so a leaked token cannot replace what was uploaded with it. A hard link, unlike a rename,
 * fails when the target exists, which settles a race too; on a file system without hard links,
 * a check and a rename do, with a small window.
 *
 * @throws {SvcError} 409 when the document has its file already
 */
async function keepOnce(file: string, path: string, id: string): Promise<void> {
  const taken = (cause?: unknown) =>
    new SvcError(
      `The document ${quote(id)} has its file already: register the document again to ` +
        "upload another file",
      { status: 409, cause },
    );
  try {
    await Deno.link(file, path);
    return;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) throw taken(error);
  }
  if (await Deno.lstat(path).then(() => true, () => false)) throw taken();
  await Deno.rename(file, path);
}
