/**
 * The LanceDB source storage, `svc.source_storages.LanceDB`: indexes in a
 * LanceDB folder of the local root.
 * @module
 */
import { join } from "node:path";
import type * as Lance from "npm:@lancedb/lancedb@0.31.0";
import type * as Arrow from "npm:apache-arrow@18.1.0";
import { quote, unavailable } from "../core/errors.ts";
import { localRoot } from "../core/local_root.ts";
import { envVar, PackageRequirement, type Requirement } from "../core/requirements.ts";
import { type IndexBackend, Openings } from "../indexing/mod.ts";
import { IndexedSourceStorage, type IndexedSourceStorageOptions } from "../retrieval/mod.ts";
import { LanceDBBackend } from "./_lancedb_backend.ts";
import { importPackage } from "../packages.ts";

/** Options of {@linkcode LanceDB}; it is constructed without any in a chat. */
export interface LanceDBOptions extends IndexedSourceStorageOptions {
  /**
   * The LanceDB folder.
   * @default {`${localRoot()}/lancedb`}
   */
  path?: string;
}

// One backend per folder in a process, shared by every instance: its writes
// go one at a time, and LanceDB has no transactions to keep two apart.
const backends = new Openings<LanceDBBackend>();

/**
 * An {@linkcode IndexedSourceStorage} in an embedded LanceDB folder,
 * `<local root>/lancedb`: the chat's chunks ranked in memory (the vectors'
 * codes' best candidates exactly by the stored vectors). The native module
 * loads on first use; `svc check` says whether it loads here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LanceDB } from "@svc/svc/source_storages";
 * assert(new LanceDB().displayName === "LanceDB");
 * ```
 */
export class LanceDB extends IndexedSourceStorage {
  static override displayName = "LanceDB";
  static override requirements: readonly Requirement[] = [
    new PackageRequirement("@lancedb/lancedb", () => importPackage("@lancedb/lancedb")),
  ];
  readonly #path?: string;

  constructor(options: LanceDBOptions = {}) {
    super(options);
    this.#path = options.path;
  }

  protected override backend(): Promise<IndexBackend> {
    const path = this.#path ?? join(localRoot(), "lancedb");
    return backends.get(path, () => open(path));
  }
}

async function open(path: string): Promise<LanceDBBackend> {
  try {
    reserveComputeThreads();
    const [lancedb, arrow] = await Promise.all([
      importPackage<typeof Lance>("@lancedb/lancedb"),
      importPackage<typeof Arrow>("apache-arrow"),
    ]);
    await Deno.mkdir(path, { recursive: true });
    return await LanceDBBackend.open(path, { lancedb, arrow });
  } catch (error) {
    throw unavailable(`Cannot open the LanceDB folder ${quote(path)}`, error);
  }
}

/**
 * Lance runs compute on the cores it does not reserve for I/O (two), on one
 * thread when that leaves none, and its compaction (`optimize`) can wait
 * forever for tasks queued behind it on a small pool: on a machine of few
 * cores it hung with one thread or two, and not with eight. So at least
 * eight, unless the user chose.
 */
function reserveComputeThreads(): void {
  if (envVar("LANCE_CPU_THREADS") !== undefined) return;
  try {
    Deno.env.set("LANCE_CPU_THREADS", String(Math.max(8, navigator.hardwareConcurrency)));
  } catch {
    // Without the permission Lance keeps its own choice.
  }
}
