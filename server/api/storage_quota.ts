/**
 * The storage quota at upload: the files a user uploaded may take at most
 * `maxStoragePerUser` bytes. An upload that would pass it is refused with 413
 * before a byte of it is written when its declared length says so or the
 * user's files fill the quota already, else as soon as its body passes it
 * while it streams, else once it is whole, by its exact size; in every case
 * nothing of it is kept.
 * @module
 */
import { quote, SvcError } from "../../components/core/errors.ts";
import type { Database, DocumentRecord } from "../database/mod.ts";
import { DEFAULT_MAX_STORAGE_PER_USER } from "../quotas.ts";

// What a multipart body holds besides the file: the boundaries, the part
// headers and the trailing fields, so that a body is not cut for them alone.
const MULTIPART_SLACK = 64 * 1024;

/** What {@linkcode UploadQuota} needs of the API. */
export interface UploadQuotaOptions {
  database: Database;
  /**
   * The most bytes the files of one user may take.
   * @default {DEFAULT_MAX_STORAGE_PER_USER}
   */
  maxStoragePerUser?: number;
}

/**
 * The quota of one upload. Read the upload from {@linkcode UploadQuota.request},
 * whose body is counted as it streams; call {@linkcode UploadQuota.admit} once
 * the user and the document are known and before the file is written, and
 * {@linkcode UploadQuota.record} once the file is whole and before it is kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDatabase } from "../database/mod.ts";
 * import { UploadQuota } from "./storage_quota.ts";
 * const database = await openDatabase("sqlite://", { localRoot: "." });
 * await database.addDocument("ada", { id: "d1", name: "a.md", metadata: {} });
 * await database.addDocument("ada", { id: "d2", name: "b.md", metadata: {} });
 * await database.recordSize("ada", "d1", 1000, 1000);
 * const request = new Request("http://svc.test/document", { method: "PUT", body: "x" });
 * const quota = new UploadQuota(request, { database, maxStoragePerUser: 1000 });
 * await assert.rejects(quota.admit("ada", { id: "d2", name: "b.md" }), { status: 413 });
 * await database.close();
 * ```
 */
export class UploadQuota {
  /** The upload, its body counted: read this one, not the original. */
  readonly request: Request;
  readonly #options: UploadQuotaOptions;
  readonly #max: number;
  #counted = 0;
  #limit = Infinity;
  #refusal?: () => SvcError;

  constructor(request: Request, options: UploadQuotaOptions) {
    this.#options = options;
    this.#max = options.maxStoragePerUser ?? DEFAULT_MAX_STORAGE_PER_USER;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => {
        this.#counted += chunk.byteLength;
        if (this.#counted > this.#limit) throw this.#refusal!();
        controller.enqueue(chunk);
      },
    });
    this.request = request.body === null ? request : new Request(
      request,
      { body: request.body.pipeThrough(counter), duplex: "half" } as RequestInit,
    );
  }

  /**
   * Lets the upload of the user's document go on, within what the user's files
   * leave of the quota; from now on, a body that passes it is cut off.
   *
   * @throws {SvcError} 413 when the user's files fill the quota already, or the
   * declared length of what is left of the body would pass it
   */
  async admit(user: string, document: DocumentRecord): Promise<void> {
    const used = await this.#options.database.storageUsed(user);
    const refusal = () => this.#tooMuch(document, used);
    const declared = Number(this.request.headers.get("content-length"));
    const left = this.#max - used;
    if (left <= 0 || declared - this.#counted > left + MULTIPART_SLACK) throw refusal();
    this.#refusal = refusal;
    this.#limit = this.#counted + left + MULTIPART_SLACK;
  }

  /**
   * Records the size of the whole file with the document, unless the user's
   * files would then pass the quota. Checked and recorded in one write of the
   * database, so that uploads ending at once cannot pass it together.
   *
   * @throws {SvcError} 413 when the file would take the user's files past the quota
   */
  async record(user: string, document: DocumentRecord, file: string): Promise<void> {
    const { size } = await Deno.stat(file);
    const { recorded, used } = await this.#options.database.recordSize(
      user,
      document.id,
      size,
      this.#max,
    );
    if (!recorded) throw this.#tooMuch(document, used);
  }

  #tooMuch(document: DocumentRecord, used: number): SvcError {
    return new SvcError(
      `Cannot upload ${quote(document.name)}: it would take your documents past the storage ` +
        `limit of ${bytes(this.#max)} per user, of which they take ${bytes(used)} already`,
      { status: 413 },
    );
  }
}

/** A number of bytes in words: `512 bytes`, `1.5 KiB`, `100 MiB`, `1 GiB`. */
export function bytes(count: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (count < 1024) return `${count} ${count === 1 ? "byte" : "bytes"}`;
  let value = count;
  let unit = "";
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${Number(value.toFixed(1))} ${unit}`;
}
