/**
 * Receives a multipart upload, streaming its file part to a temporary file so
 * that no upload is ever whole in memory, and writing nothing before the
 * upload was let in.
 * @module
 */
// @ts-types="npm:@types/busboy@1.5.5"
import type busboy from "busboy";
import { join } from "../../components/core/paths.ts";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { SvcError } from "../../components/core/errors.ts";
import { diskFaultError } from "../../components/disk_faults.ts";
import { bodyCutOff } from "./body_timeout.ts";

/** The start of the name of an upload's temporary file; only a crash leaves one behind. */
export const UPLOAD_PREFIX = ".upload-";

/** What a multipart upload held. */
export interface Upload extends AsyncDisposable {
  /** The form fields other than the file. */
  fields: Record<string, string>;
  /** The temporary file that holds the part named `file`, if there was one. */
  file?: string;
}

/** Options of {@linkcode receiveUpload}. */
export interface ReceiveUploadOptions {
  /** The largest file accepted, in bytes. */
  maxSize: number;
  /** Where the temporary file goes; the same file system as its final place, for a rename. */
  folder: string;
  /**
   * Called when the file part begins, with the fields that came before it;
   * nothing is written before it resolves, and nothing at all when it throws.
   */
  admit(fields: Record<string, string>): Promise<void>;
}

/**
 * Reads a `multipart/form-data` request: its fields, and its part `file`
 * written to a temporary file that is removed when the upload is disposed
 * (unless it was moved away). Whatever ends the upload early (a refusal, a
 * body cut off or stalled, a file over the limit, a failed write) stops the
 * reading at once and removes the temporary file before this rejects.
 *
 * @throws {SvcError} 413 for a file over the limit; 415 for a body that is not
 * multipart; 422 for a multipart body that cannot be read; 503 or 507 when
 * the file cannot be written; the error of `admit`, or of the body (400, 408)
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
  // Loaded by the first upload rather than when svc starts, as is Node's stream that feeds it
  // (Node's streams cost a start some 4 MiB and 30 ms of processor time).
  const [{ default: multipart }, { Readable }] = await Promise.all([
    import("busboy"),
    import("node:stream"),
  ]);
  try {
    parser = multipart({
      headers: Object.fromEntries(request.headers),
      limits: { fileSize: options.maxSize, files: 1, fields: 20, fieldSize: 64 * 1024 },
    });
  } catch (error) {
    throw notMultipart(error);
  }

  const upload: Upload = {
    fields: {},
    async [Symbol.asyncDispose]() {
      if (upload.file) await Deno.remove(upload.file).catch(() => {});
    },
  };
  const body = request.body ?? new ReadableStream({ start: (c) => c.close() });
  const source = Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  let writing: Promise<void> | undefined;
  let fail!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    let failed = false;
    fail = (error) => {
      if (failed) return;
      failed = true;
      reject(error);
      // Stops reading the body: the rest is never parsed, let alone written.
      // Once busboy is out of the event that failed, which it may go on with.
      queueMicrotask(() => {
        source.unpipe(parser);
        source.destroy();
        parser.destroy();
      });
    };
    parser.on("close", resolve);
    parser.on("error", (error) => fail(source.errored ?? error));
    source.on("error", (error) => fail(error));
  });
  finished.catch(() => {});

  parser.on("field", (name, value) => upload.fields[name] = value);
  parser.on("file", (name, stream) => {
    // Its errors reach the writing, or are those of the parser: none is left unheard.
    stream.on("error", () => {});
    if (name !== "file" || writing) {
      stream.resume();
      return;
    }
    stream.on("limit", () => fail(tooLarge(options.maxSize)));
    // Read only once admitted: until then busboy, and so the body, waits.
    writing = (async () => {
      await options.admit({ ...upload.fields });
      await writeFile(stream, options.folder, (path) => upload.file = path);
    })();
    writing.catch(fail);
  });

  source.pipe(parser);
  try {
    await finished;
    await writing;
  } catch (error) {
    // The file is removed only once nothing writes to it any more.
    await writing?.catch(() => {});
    await upload[Symbol.asyncDispose]();
    throw uploadError(error);
  }
  return upload;
}

/**
 * Writes `stream` to a new temporary file in `folder`, named to `created` as
 * soon as it exists, so that whoever removes it knows it.
 */
async function writeFile(
  stream: AsyncIterable<Uint8Array>,
  folder: string,
  created: (path: string) => void,
): Promise<void> {
  const path = join(folder, `${UPLOAD_PREFIX}${crypto.randomUUID()}`);
  let file: Deno.FsFile;
  try {
    await Deno.mkdir(folder, { recursive: true });
    file = await Deno.open(path, { write: true, createNew: true });
  } catch (error) {
    throw notWritable(error);
  }
  created(path);
  const writer = file.writable.getWriter();
  try {
    for await (const chunk of stream) {
      await writer.write(chunk).catch((error) => {
        throw notWritable(error);
      });
    }
    await writer.close();
  } catch (error) {
    await writer.abort(error).catch(() => {});
    throw error;
  }
}

/** The error for an upload over the size limit. */
export function tooLarge(maxSize: number): SvcError {
  return new SvcError(
    `The file is larger than the upload limit of ${maxSize} bytes (SVC_API_MAX_UPLOAD_SIZE)`,
    { status: 413 },
  );
}

/** What the client is told about an upload that ended early. */
function uploadError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  // Node's streams report a body that ended early in their own words.
  const code = (error as { code?: string }).code;
  if (code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ABORT_ERR") return bodyCutOff(error);
  return notMultipart(error);
}

/**
 * 507 when the disk is full, else 503: the upload cannot be stored, through no
 * fault of its own. The log has the cause; the client is not told the paths.
 */
function notWritable(cause: unknown): SvcError {
  return diskFaultError("Cannot store the upload", cause) ??
    new SvcError("Cannot store the upload: the documents folder is not writable", {
      status: 503,
      cause,
    });
}

/** 415 for a body of another type, 422 for a multipart body that cannot be read. */
function notMultipart(cause: unknown, status = 422): SvcError {
  return new SvcError(
    'The upload must be multipart/form-data with the "token" field and a file part named "file"',
    { status, cause },
  );
}
