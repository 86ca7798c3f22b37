/**
 * The Chroma source storage, `svc.source_storages.Chroma`: indexes on a
 * Chroma server.
 * @module
 */
import type * as Chromadb from "npm:chromadb@3.5.0";
import { quote, unavailable } from "../core/errors.ts";
import {
  envVar,
  PackageRequirement,
  type Requirement,
  ServerRequirement,
} from "../core/requirements.ts";
import { importPackage } from "../packages.ts";
import { redactUrl } from "../core/redact_url.ts";
import { secrets } from "../core/secrets.ts";
import { trimSlashes } from "../core/text_scan.ts";
import { ChromaBackend } from "./_chroma_backend.ts";
import { type IndexBackend, Openings } from "../indexing/mod.ts";
import { IndexedSourceStorage, type IndexedSourceStorageOptions } from "../retrieval/mod.ts";

/** Options of {@linkcode Chroma}; it is constructed without any in a chat. */
export interface ChromaOptions extends IndexedSourceStorageOptions {
  /**
   * The Chroma server.
   * @default {Deno.env.get("SVC_CHROMA_URL") ?? "http://127.0.0.1:8000"}
   */
  url?: string;
}

const DEFAULT_URL = "http://127.0.0.1:8000";

// One backend per server in a process, shared by every instance: its writes
// go one at a time, and it keeps the term statistics of the indexes.
const backends = new Openings<ChromaBackend>();

/**
 * An {@linkcode IndexedSourceStorage} on a Chroma server (1.0 or later), env
 * `SVC_CHROMA_URL`, else `http://127.0.0.1:8000`: an index is a collection of
 * its own, whose nearest chunks Chroma finds. svc computes the vectors (the
 * collections have no embedding function), so that every storage finds the
 * same with the same embedder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Chroma } from "@svc/svc/source_storages";
 * assert(new Chroma().displayName === "Chroma");
 * ```
 */
export class Chroma extends IndexedSourceStorage {
  static override displayName = "Chroma";
  readonly #url?: string;

  static override get requirements(): readonly Requirement[] {
    const url = chromaUrl();
    return [
      new PackageRequirement("chromadb", () => importPackage("chromadb")),
      new ServerRequirement(`Chroma at ${quote(redactUrl(url))}`, () => `${url}/api/v2/heartbeat`),
    ];
  }

  constructor(options: ChromaOptions = {}) {
    super(options);
    this.#url = options.url;
  }

  protected override backend(): Promise<IndexBackend> {
    const url = chromaUrl(this.#url);
    return backends.get(url, () => open(url));
  }
}

/** The server's URL without a final slash. */
function chromaUrl(url = envVar("SVC_CHROMA_URL") || DEFAULT_URL): string {
  return trimSlashes(url);
}

async function open(url: string): Promise<ChromaBackend> {
  secrets.addUrl(url);
  try {
    const { ChromaClient } = await importPackage<typeof Chromadb>("chromadb");
    const parsed = new URL(url);
    const ssl = parsed.protocol === "https:";
    const client = new ChromaClient({
      host: parsed.hostname,
      port: Number(parsed.port) || (ssl ? 443 : 80),
      ssl,
    });
    return await ChromaBackend.open(client);
  } catch (error) {
    throw unavailable(`Cannot use the Chroma server ${quote(redactUrl(url))}`, error, url);
  }
}
