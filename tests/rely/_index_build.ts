/**
 * A process that builds a large index with the LibSQL storage's backend in
 * `<local root>/libsql/sources.db`, as a prepare does, for a test to kill in
 * the middle of it: `deno run -A _index_build.ts <local root>`. It never ends
 * on its own before the test kills it.
 * @module
 */
import { createClient } from "@libsql/client";
import { join } from "node:path";
import { LibSQLBackend } from "../../components/source_storages/_libsql_backend.ts";

const root = Deno.args[0]!;
await Deno.mkdir(join(root, "libsql"), { recursive: true });
const client = createClient({ url: `file:${join(root, "libsql", "sources.db")}` });
const backend = await LibSQLBackend.open(client);
const chunks = 200_000;
const key = "killed-build";
await backend.add({
  key,
  contentHash: "0".repeat(64),
  chunkSize: 500,
  chunkOverlap: 0,
  embedder: "test",
  dimension: 4,
  chunks: Array.from({ length: chunks }, (_, i) => ({
    text: `Passage ${i}`,
    pageNumbers: [],
    numTokens: 2,
  })),
  vectors: Array.from({ length: chunks }, () => new Float32Array([1, 0, 0, 0])),
}, { chatId: "chat", documentId: "document", key });
