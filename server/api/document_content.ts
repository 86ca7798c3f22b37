/**
 * A document as its owner uploaded it, `GET /documents/{id}/content` (with
 * ranges and an ETag, so that a viewer reads a large file in parts and a
 * browser keeps it), as svc reads it, `GET /documents/{id}/pages`, and as the
 * web UI shows it, `GET /documents/{id}/view`.
 * @module
 */
import { type Context, Hono } from "hono";
import { extname } from "../../components/core/paths.ts";
import { LocalDocument, READERS_MODULE } from "../../components/core/document.ts";
import { quote, SvcError } from "../../components/core/errors.ts";
import type { StoredDocument } from "../database/mod.ts";
import { byteRange } from "./byte_range.ts";
import type { ApiEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import type { viewOf } from "../../components/documents/pages.ts";
import type { DocumentPages, DocumentView } from "./schemas.ts";
import { VERSION } from "../../components/version.ts";
import { requestUser } from "./user.ts";

/**
 * svc's document readers, imported by a name Deno does not read ahead, as
 * `Document.extractPages()` imports them: a start needs none of them.
 */
const READERS = `../../components/core/${READERS_MODULE}`;

/** What the view route needs of {@linkcode READERS}. */
interface Readers {
  viewOf: typeof viewOf;
}

/** The media type of each suffix svc reads. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".pdf": "application/pdf",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** How much of the file is read at a time. */
const CHUNK_SIZE = 64 * 1024;

/**
 * The routes of a document's content and pages: the owner's only, 404 for
 * another user's or an unknown document, and for one whose file was not
 * uploaded yet.
 */
export function documentContentRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/documents/:id/content", async (c) => {
    const document = await uploadedDocument(c);
    const path = document.metadata.path as string;
    const { size } = await stat(path, document);
    // A document's file is written once and never replaced, so its id and size name its bytes,
    // alike on every replica, whose copies of it differ in their times.
    const etag = `"${document.id}-${size.toString(36)}"`;
    const headers: Record<string, string> = {
      "Content-Type": CONTENT_TYPES[extname(document.name).toLowerCase()] ??
        "application/octet-stream",
      "Content-Disposition": contentDisposition(document.name),
      "Accept-Ranges": "bytes",
      ETag: etag,
      // Another user's bearer never gets it, so no shared cache may keep it.
      "Cache-Control": "private, no-cache",
      // A document is shown as what it is, never run as a page.
      "Content-Security-Policy": "sandbox; default-src 'none'",
    };
    if (matches(c.req.header("If-None-Match"), etag)) {
      return new Response(null, { status: 304, headers });
    }
    // A range of a file that changed since the client's copy would not fit it: the whole file.
    const ifRange = c.req.header("If-Range");
    const range = ifRange === undefined || ifRange === etag
      ? byteRange(c.req.header("Range"), size)
      : undefined;
    if (range === "unsatisfiable") {
      const message = `The range ${quote(c.req.header("Range")!)} is outside the document, ` +
        `which has ${size} bytes`;
      return c.json(errorBody(message), 416, { "Content-Range": `bytes */${size}` });
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    headers["Content-Length"] = String(end - start + 1);
    if (range) headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
    const status = range ? 206 : 200;
    if (c.req.method === "HEAD") return new Response(null, { status, headers });
    const file = await Deno.open(path).catch((error) => {
      throw missing(document, error);
    });
    return new Response(fileSlice(file, start, end - start + 1, document), { status, headers });
  });

  app.get("/documents/:id/pages", async (c) => {
    const { deps } = c.var;
    const row = await uploadedDocument(c);
    await stat(row.metadata.path as string, row);
    const pages = await new (deps.document ?? LocalDocument)(row).extractPages();
    const body: DocumentPages = {
      pages: pages.map((page) => ({ number: page.number, text: page.text })),
    };
    return c.json(body);
  });

  app.get("/documents/:id/view", async (c) => {
    const { deps } = c.var;
    const row = await uploadedDocument(c);
    const { size } = await stat(row.metadata.path as string, row);
    // The same file reads the same by the same svc: a client keeps the view of each document.
    const etag = `"view-${VERSION}-${row.id}-${size.toString(36)}"`;
    const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
    if (matches(c.req.header("If-None-Match"), etag)) {
      return new Response(null, { status: 304, headers });
    }
    // Loaded by the first request of a document's view; rendered in a reader thread.
    const readers: Readers = await import(READERS);
    const view: DocumentView = await readers.viewOf(new (deps.document ?? LocalDocument)(row));
    return c.json(view, 200, headers);
  });

  return app;
}

/** The user's document of the route. */
async function uploadedDocument(c: Context<ApiEnv>): Promise<StoredDocument> {
  const user = await requestUser(c);
  const { database } = c.var.deps;
  const document = await database.getDocument(user, c.req.param("id")!);
  // An upload another replica received is read from this replica's copy.
  return (await database.localFiles?.([document]))?.[0] ?? document;
}

/** @throws {SvcError} 404 when the document's file is not there (not uploaded yet) */
async function stat(path: string, document: StoredDocument): Promise<Deno.FileInfo> {
  const info = await Deno.stat(path).catch((error) => {
    throw missing(document, error);
  });
  if (!info.isFile) throw missing(document);
  return info;
}

function missing(document: StoredDocument, cause?: unknown): SvcError {
  return new SvcError(
    `The document ${quote(document.id)} has no content: its file was not uploaded ` +
      "(PUT /document with the parameters of POST /document)",
    { status: 404, cause },
  );
}

/** Whether an `If-None-Match` header names the ETag. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.trim() === "*" ||
    header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** `inline`, with the name as ASCII for old clients and in full as UTF-8. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * `length` bytes of the file from `start`, read as the client takes them;
 * the file is closed at the end, when the client leaves, and when a read
 * fails or the file turns out shorter than it was (the stream then errors,
 * so that the client sees a cut-off body rather than a short one).
 */
export function fileSlice(
  file: Deno.FsFile,
  start: number,
  length: number,
  document: { id: string },
): ReadableStream<Uint8Array> {
  let left = length;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    file.close();
  };
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        if (start > 0) await file.seek(start, Deno.SeekMode.Start);
      } catch (error) {
        close();
        controller.error(error);
      }
    },
    async pull(controller) {
      if (left === 0) {
        close();
        controller.close();
        return;
      }
      try {
        const buffer = new Uint8Array(Math.min(CHUNK_SIZE, left));
        const read = await file.read(buffer);
        if (read === null) {
          throw new SvcError(
            `The file of the document ${quote(document.id)} ended ${left} bytes early`,
          );
        }
        left -= read;
        controller.enqueue(buffer.subarray(0, read));
      } catch (error) {
        close();
        controller.error(error);
      }
    },
    cancel: close,
  }, { highWaterMark: 0 });
}
