/**
 * Document routes: register a document (`POST /document`), then upload its
 * content with the returned parameters (`PUT /document`).
 * @module
 */
import { type Context, Hono } from "hono";
import { join } from "../../components/core/paths.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { quote, SvcError } from "../../components/core/errors.ts";
import { diskFaultError } from "../../components/disk_faults.ts";
import { jsonBody } from "./body.ts";
import type { ApiDeps, ApiEnv } from "./env.ts";
import { DEFAULT_MAX_PENDING_DOCUMENTS_PER_USER } from "../quotas.ts";
import { RetryLaterError } from "../retry_later.ts";
import { UPLOAD_TOKEN_TTL } from "../upload_token.ts";
import { Registration } from "./schemas.ts";
import type { Database, StoredDocument } from "../database/mod.ts";
import { UploadQuota } from "./storage_quota.ts";
import { receiveUpload } from "./upload.ts";
import {
  DEFAULT_UPLOAD_MIN_RATE,
  DEFAULT_UPLOAD_RATE_WINDOW,
  DEFAULT_UPLOAD_TIMEOUT,
  pacedRequest,
} from "./upload_pace.ts";
import type { UploadSlots } from "./upload_slots.ts";
import { requestUser } from "./user.ts";

/**
 * The header that may carry the upload token (so may the query parameter
 * `token`), besides the form field of the interface: either lets svc check the
 * token before it parses the body.
 */
export const UPLOAD_TOKEN_HEADER = "X-Upload-Token";

/** The routes of `/document`; `slots` bounds the uploads that run at once. */
export function documentRoutes(slots: UploadSlots): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/document", async (c) => {
    const { deps } = c.var;
    const user = await requestUser(c);
    const { name } = await jsonBody(c, Registration);
    const id = crypto.randomUUID();
    // The stored path comes from the id alone, never from the client's name.
    const metadata = { path: join(deps.localRoot, "documents", id) };
    // Made before anything is stored: a name whose suffix svc cannot read is refused here.
    const document = new (deps.document ?? LocalDocument)({ id, name, metadata });
    await register(deps, user, document);
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
    // A token in the header or the URL is checked before the body is parsed.
    const early = c.req.header(UPLOAD_TOKEN_HEADER) ?? c.req.query("token");
    const paced = pacedRequest(c.req.raw, {
      timeout: deps.uploadTimeout ?? DEFAULT_UPLOAD_TIMEOUT * 1000,
      minRate: deps.uploadMinRate ?? DEFAULT_UPLOAD_MIN_RATE,
      window: deps.uploadRateWindow ?? DEFAULT_UPLOAD_RATE_WINDOW * 1000,
    });
    const quota = new UploadQuota(paced, deps);
    let admitted: Admitted | undefined;
    try {
      if (early !== undefined) admitted = await admit(c, slots, early, quota);
      await using upload = await receiveUpload(quota.request, {
        maxSize: deps.maxUploadSize,
        folder: join(deps.localRoot, "documents"),
        async admit(fields) {
          oneToken(fields.token, early);
          if (admitted) return;
          if (fields.token === undefined) throw tokenFirst();
          admitted = await admit(c, slots, fields.token, quota);
        },
      });
      oneToken(upload.fields.token, early);
      admitted ??= await admit(c, slots, upload.fields.token, quota);
      if (!upload.file) {
        throw new SvcError('The upload has no file part named "file"', { status: 422 });
      }
      const { document } = admitted;
      await quota.record(c.var.user!, document, upload.file);
      // With files kept in the database, this replica's copy goes in its own local root: the
      // replica that registered the document may have another.
      const path = deps.database.keepFile
        ? join(deps.localRoot, "documents", document.id)
        : document.metadata.path as string;
      await keepOnce(upload.file, path, document.id);
      await keepShared(deps.database, c.var.user!, document, path);
      return c.json({ id: document.id, name: document.name });
    } finally {
      admitted?.release();
    }
  });

  return app;
}

/**
 * Stores a registered document, counted among the user's registrations that
 * wait for their file: those whose token still lets an upload start count,
 * up to `maxPendingDocumentsPerUser`; those whose upload can no longer start
 * nor still run (the token's lifetime and the upload's deadline have passed)
 * are removed.
 *
 * @throws {RetryLaterError} 429 when as many registrations wait as allowed
 */
async function register(deps: ApiDeps, user: string, document: StoredDocument): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const uploadTimeout = Math.ceil((deps.uploadTimeout ?? DEFAULT_UPLOAD_TIMEOUT * 1000) / 1000);
  const maxPending = deps.maxPendingDocumentsPerUser ?? DEFAULT_MAX_PENDING_DOCUMENTS_PER_USER;
  const { added, pending, oldestPending } = await deps.database.addDocument(user, document, {
    now,
    maxPending,
    countedSince: now - UPLOAD_TOKEN_TTL,
    expireBefore: now - UPLOAD_TOKEN_TTL - uploadTimeout,
  });
  if (added) return;
  const wait = (oldestPending ?? now) + UPLOAD_TOKEN_TTL - now;
  throw new RetryLaterError(
    `Cannot register ${quote(document.name)}: you have registered ${pending} documents whose ` +
      "files have not come, the most one user may have waiting " +
      "(SVC_API_MAX_PENDING_DOCUMENTS_PER_USER); upload their files, or try again in " +
      `${Math.max(1, wait)} s`,
    wait,
  );
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
  try {
    await Deno.link(file, path);
    return;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) throw taken(id, error);
  }
  if (await exists(path)) throw taken(id);
  await Deno.rename(file, path).catch((error) => {
    throw diskFaultError("Cannot store the upload", error) ?? error;
  });
}

/**
 * Keeps the file where every replica reads it, when the database keeps files
 * (PostgreSQL). If it cannot, the file goes from here as well, so that the
 * upload can be sent again, to this replica or another.
 */
async function keepShared(
  database: Database,
  user: string,
  document: StoredDocument,
  path: string,
): Promise<void> {
  if (!database.keepFile) return;
  try {
    await database.keepFile(user, document.id, path);
  } catch (error) {
    await Deno.remove(path).catch(() => {});
    throw error;
  }
}

/** An upload let in: its user's document, and its slot to give back. */
interface Admitted {
  document: StoredDocument;
  release: () => void;
}

/**
 * Lets an upload in before anything of it is written: its token is valid,
 * its document is the user's and has no file yet, the user's storage has room
 * for it, and a slot is free.
 *
 * @throws {SvcError} 401 for a bad token, 404 for another user's or a missing
 * document, 409 for a document that has its file, 413 when the user's storage
 * has no room for it, 429 when no slot is free
 */
async function admit(
  c: Context<ApiEnv>,
  slots: UploadSlots,
  token: string | undefined,
  quota: UploadQuota,
): Promise<Admitted> {
  const { deps } = c.var;
  const { user, id } = await deps.uploadTokens.verify(token);
  c.set("user", user);
  const document = await deps.database.getDocument(user, id);
  if (await exists(document.metadata.path as string)) throw taken(id);
  if (await deps.database.hasFile?.(id)) throw taken(id);
  await quota.admit(user, document);
  return { document, release: slots.take(user) };
}

/** An upload may carry its token twice, in the form and in the header or URL, but not two. */
function oneToken(field: string | undefined, early: string | undefined): void {
  if (early === undefined || field === undefined || field === early) return;
  throw new SvcError(
    `The upload has two different tokens, in its "token" field and in the ${UPLOAD_TOKEN_HEADER} ` +
      'header or the "token" query parameter: send one',
    { status: 422 },
  );
}

/** The refusal of a file part that comes before any token. */
function tokenFirst(): SvcError {
  return new SvcError(
    'The upload\'s file part came before its token: send the "token" field before the file, ' +
      `or the token in the ${UPLOAD_TOKEN_HEADER} header`,
    { status: 401 },
  );
}

function taken(id: string, cause?: unknown): SvcError {
  return new SvcError(
    `The document ${quote(id)} has its file already: register the document again to ` +
      "upload another file",
    { status: 409, cause },
  );
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
