/** Builders of records and databases shared by the database tests. */
import { createClient } from "@libsql/client";
import { SvcError } from "../../../components/core/errors.ts";
import {
  type ChatRecord,
  type Database,
  type DocumentRecord,
  type MessageRecord,
  openDatabase,
  type SourceRecord,
  type StoredDocument,
} from "../../../server/database/mod.ts";
import { tmpDir } from "../../test_utils.ts";

/** The two kinds of local database every behaviour is checked on. */
export const KINDS = ["file", "memory"] as const;
export type Kind = typeof KINDS[number];

/** A fresh database of the kind, closed and removed when disposed; `path` is the file's. */
export async function freshDatabase(
  kind: Kind,
): Promise<AsyncDisposable & { db: Database; path?: string }> {
  const dir = await tmpDir();
  const path = `${dir.path}/svc.db`;
  const db = await openDatabase(kind === "file" ? `sqlite:///${path}` : "sqlite://", {
    localRoot: dir.path,
  });
  return {
    db,
    path: kind === "file" ? path : undefined,
    [Symbol.asyncDispose]: async () => {
      await db.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

const TABLES = [
  "users",
  "documents",
  "chats",
  "chat_documents",
  "messages",
  "sources",
  "message_sources",
];

/** The number of rows of each table of a file database, read with a client of its own. */
export async function countRows(path: string): Promise<Record<string, number>> {
  // See `sql()` in connect_test.ts: the locks of a closed database go a moment later.
  const client = createClient({ url: `file:${path}`, timeout: 5000 });
  try {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      const { rows } = await client.execute(`SELECT COUNT(*) AS n FROM ${table}`);
      counts[table] = Number(rows[0]!.n);
    }
    return counts;
  } finally {
    client.close();
  }
}

/** A document with metadata, as an upload stores it. */
export function document(id: string, name = `${id}.md`): StoredDocument {
  return { id, name, metadata: { path: `/uploads/${id}/${name}` } };
}

/** A source of the document. */
export function source(id: string, of: DocumentRecord, content = `Passage ${id}`): SourceRecord {
  return { id, document: { id: of.id, name: of.name }, location: "1-3, 5", content, num_tokens: 7 };
}

let clock = Date.UTC(2026, 10, 26, 1, 2, 3, 456);

/** A message; timestamps go up by a millisecond unless `timestamp` is given. */
export function message(
  id: string,
  options: Partial<Omit<MessageRecord, "id">> = {},
): MessageRecord {
  return {
    id,
    content: options.content ?? `Content of ${id}`,
    role: options.role ?? "user",
    sources: options.sources ?? [],
    timestamp: options.timestamp ?? new Date(clock++).toISOString(),
    citations: options.citations ?? [],
  };
}

/** A chat over the documents. */
export function chat(
  id: string,
  documents: DocumentRecord[],
  extra: Partial<ChatRecord> = {},
): ChatRecord {
  return {
    id,
    metadata: {
      name: `Chat ${id}`,
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: { chunk_size: 500, nested: { list: [1, "two", null], flag: true } },
      documents: documents.map(({ id, name }) => ({ id, name })),
    },
    messages: [],
    prepared: false,
    ...extra,
  };
}

/** A predicate for `assert.rejects`: an `SvcError` with the status whose message matches. */
export function svcError(status: number, pattern: RegExp | string): (error: unknown) => boolean {
  return (error: unknown): boolean => {
    if (!(error instanceof SvcError)) throw error;
    if (error.status !== status) {
      throw new Error(`Expected status ${status}, got ${error.status}: ${error.message}`);
    }
    const matches = typeof pattern === "string"
      ? error.message === pattern
      : pattern.test(error.message);
    if (!matches) throw new Error(`Unexpected message: ${error.message}`);
    return true;
  };
}
