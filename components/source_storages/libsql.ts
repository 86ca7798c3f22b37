/**
 * The LibSQL source storage, `svc.source_storages.LibSQL`: indexes in a
 * libSQL database, a file of the local root or a libSQL server.
 * @module
 */
import { dirname, join } from "node:path";
import type { Client } from "@libsql/client";
import { quote, unavailable } from "../core/errors.ts";
import { localRoot } from "../core/local_root.ts";
import { envVar, PackageRequirement, type Requirement } from "../core/requirements.ts";
import { assertWritable, diskFaultError } from "../disk_faults.ts";
import { redactUrl } from "../core/redact_url.ts";
import { secrets } from "../core/secrets.ts";
import { useIncrementalVacuum } from "../sqlite_space.ts";
import { type IndexBackend, Openings } from "../indexing/mod.ts";
import { IndexedSourceStorage, type IndexedSourceStorageOptions } from "../retrieval/mod.ts";
import { LibSQLBackend } from "./_libsql_backend.ts";

/** Options of {@linkcode LibSQL}; it is constructed without any in a chat. */
export interface LibSQLOptions extends IndexedSourceStorageOptions {
  /**
   * The database: a libSQL server (`libsql://`, `https://`, `http://`) or a
   * `file:` URL.
   * @default {Deno.env.get("SVC_LIBSQL_URL") ?? `file:${localRoot()}/libsql/sources.db`}
   */
  url?: string;
  /**
   * The token for a libSQL server.
   * @default {Deno.env.get("SVC_LIBSQL_AUTH_TOKEN")}
   */
  authToken?: string;
}

/**
 * An {@linkcode IndexedSourceStorage} in a libSQL database, the embedded
 * default, whose full text weighs words as FTS5 does. Works offline with the
 * default embedder, which is lexical, not semantic (see `HashEmbedder`).
 *
 * The database is `<local root>/libsql/sources.db` unless env `SVC_LIBSQL_URL`
 * names a libSQL server (token in `SVC_LIBSQL_AUTH_TOKEN`). The space of the
 * indexes a chat's deletion removes goes back to the disk. A database file
 * that cannot be written (a read-only disk) is not opened, so that the
 * storage works again once it can be written, without a restart.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LibSQL } from "@svc/svc/source_storages";
 * assert(new LibSQL().displayName === "LibSQL");
 * ```
 */
export class LibSQL extends IndexedSourceStorage {
  static override displayName = "LibSQL";
  static override requirements: readonly Requirement[] = [
    new PackageRequirement("@libsql/client", () => import("@libsql/client")),
  ];
  readonly #url?: string;
  readonly #authToken?: string;
  readonly #backends = new Openings<LibSQLBackend>();

  constructor(options: LibSQLOptions = {}) {
    super(options);
    this.#url = options.url;
    this.#authToken = options.authToken;
  }

  /**
   * Opens the storage's database, which removes what builds that stopped
   * midway left (a process killed while it indexed): `svc api` calls it at
   * start, so that their rows go then rather than at the storage's first use.
   */
  async sweep(): Promise<void> {
    await this.backend();
  }

  protected override backend(): Promise<IndexBackend> {
    const url = this.#url ?? envVar("SVC_LIBSQL_URL") ??
      fileUrl(join(localRoot(), "libsql", "sources.db"));
    return this.#backends.get(url, () => {
      const path = url.startsWith("file:") ? filePath(url) : undefined;
      return open(url, { path, authToken: this.#authToken ?? envVar("SVC_LIBSQL_AUTH_TOKEN") });
    });
  }
}

async function open(
  url: string,
  options: { path?: string; authToken?: string },
): Promise<LibSQLBackend> {
  const name = options.path ?? redactUrl(url);
  secrets.addUrl(url);
  secrets.add(options.authToken);
  let client: Client | undefined;
  try {
    const { createClient } = await import("@libsql/client");
    if (options.path) {
      await Deno.mkdir(dirname(options.path), { recursive: true });
      // SQLite opens a file it cannot write read-only, and a process keeps it
      // so until it ends: refused here instead, it is opened once it can be.
      await assertWritable(["", "-wal", "-shm"].map((suffix) => `${options.path}${suffix}`));
      client = await fileClient(url);
    } else {
      client = createClient({ url, authToken: options.authToken });
    }
    return await LibSQLBackend.open(client, {
      reclaimSpace: options.path !== undefined,
      keepLinks: options.path !== undefined,
    });
  } catch (error) {
    client?.close();
    const what = `Cannot open the LibSQL database ${quote(name)}`;
    throw diskFaultError(what, error) ?? unavailable(what, error, url);
  }
}

/**
 * A client of the database file at the `file:` URL `url`, on one connection
 * with the settings its searches read with. The client opens another
 * connection for a call made while one is under way (two documents stored
 * at once), without those settings: after a chat's documents were stored,
 * its questions read the passages and vectors they do not keep without
 * memory-mapping. No transaction holds the connection: every call is a
 * statement or a batch, run to its end.
 */
export async function fileClient(url: string): Promise<Client> {
  const { createClient } = await import("@libsql/client");
  // Writers from other processes wait for the lock rather than fail.
  const client = createClient({ url, timeout: 5000, concurrency: 1 });
  try {
    // Before WAL, which writes a new file's first page: removed indexes give space back.
    await useIncrementalVacuum(client);
    // WAL lets searches read while an index is written; memory-mapped reads
    // make the exact vector scan faster.
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA mmap_size = 1073741824");
    return client;
  } catch (error) {
    client.close();
    throw error;
  }
}

/** A `file:` URL of an absolute path, percent-encoded because the client decodes it. */
function fileUrl(path: string): string {
  return `file:${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The path of a `file:` URL as the client reads it: `file:///a/b.db`, `file:/a/b.db`, `file:b.db`. */
function filePath(url: string): string {
  return decodeURIComponent(url.slice("file:".length).replace(/\?.*$/, "").replace(/^\/\//, ""));
}
