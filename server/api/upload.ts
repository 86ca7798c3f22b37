/**
 * Receives a multipart upload, streaming its file part to a temporary file so
 * that no upload is ever whole in memory.
 * @module
 */
// @ts-types="npm:@types/busboy@1.5.5"
import busboy from "busboy";
import { join } from "node:path";
import { Readable } from "node:stream";
import { SvcError } from "../../components/core/errors.ts";

/** The start of the name of an upload's temporary file; only a crash leaves one behind. */
export const UPLOAD_PREFIX = ".upload-";

/** What a multipart upload held. */
export interface Upload extends AsyncDisposable {
  /** The form fields other than the file. */
  fields: Record<string, string>;
  /** The temporary file that holds the part named `file`, if there was one. */
  file?: string;
  /** Whether the file was cut off at the size limit. */
  tooLarge: boolean;
}

/** Options of {@linkcode receiveUpload}. */
export interface ReceiveUploadOptions {
  /** The largest file accepted, in bytes. */
  maxSize: number;
  /** Where the temporary file goes; the same file system as its final place, for a rename. */
  folder: string;
}

/**
 * Reads a `multipart/form-data` request: its fields, and its part `file`
 * written to a temporary file that is removed when the upload is disposed
 * (unless it was moved away).
 *
 * @throws {SvcError} 413 when the declared length is over the limit; 415 for a
 * body that is not multipart; 422 for a multipart body that cannot be read
 */
export async function receiveUpload(
  request: Request,
  options: ReceiveUploadOptions,
): Promise<Upload> {
  const type = request.headers.get("content-type")?.split(";", 1)[0]?.trim().toLowerCase();
  if (type !== "multipart/form-data") throw notMultipart(undefined, 415);
  const declared = Number(request.headers.get("content-length"));
  if (declared > options.maxSize + 64 * 1024) throw tooLarge(options.maxSize);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: Object.fromEntries(request.headers),
      limits: { fileSize: options.maxSize, files: 1, fields: 20, fieldSize: 64 * 1024 },
    });
  } catch (error) {
    throw notMultipart(error);
  }

  const upload: Upload = {
    fields: {},
    tooLarge: false,
    async [Symbol.asyncDispose]() {
      if (upload.file) await Deno.remove(upload.file).catch(() => {});
    },
  };
  let writing: Promise<void> | undefined;
  parser.on("field", (name, value) => upload.fields[name] = value);
  parser.on("file", (name, stream) => {
    if (name !== "file" || writing) {
      stream.resume();
      return;
    }
    const path = join(options.folder, `${UPLOAD_PREFIX}${crypto.randomUUID()}`);
    upload.file = path;
    writing = (async () => {
      await Deno.mkdir(options.folder, { recursive: true });
      const file = await Deno.open(path, { write: true, createNew: true });
      const writer = file.writable.getWriter();
      try {
        for await (const chunk of stream) await writer.write(chunk);
        await writer.close();
      } catch (error) {
        await writer.abort(error).catch(() => {});
        throw error;
      }
      upload.tooLarge = (stream as unknown as { truncated: boolean }).truncated;
    })();
  });

  const finished = new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", reject);
  });
  const body = request.body ?? new ReadableStream({ start: (c) => c.close() });
  Readable.fromWeb(body as import("node:stream/web").ReadableStream).pipe(parser);
  try {
    await finished;
    await writing;
  } catch (error) {
    await upload[Symbol.asyncDispose]();
    throw notMultipart(error);
  }
  return upload;
}

/** The error for an upload over the size limit. */
export function tooLarge(maxSize: number): SvcError {
  return new SvcError(
    `The file is larger than the upload limit of ${maxSize} bytes (SVC_API_MAX_UPLOAD_SIZE)`,
    { status: 413 },
  );
}

/** 415 for a body of another type, 422 for a multipart body that cannot be read. */
function notMultipart(cause: unknown, status = 422): SvcError {
  return new SvcError(
    'The upload must be multipart/form-data with the "token" field and a file part named "file"',
    { status, cause },
  );
}
