/**
 * `DELETE /chats/{id}` on a full disk, with the LibSQL storage: a deletion the
 * database refuses leaves the chat whole, its indexes linked; a chat deleted
 * while its storage cannot forget it is forgotten by the storage later.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createClient } from "@libsql/client";
import type { IndexBackend } from "../../../components/indexing/mod.ts";
import { LibSQLBackend } from "../../../components/source_storages/_libsql_backend.ts";
import { LibSQL } from "../../../components/source_storages/libsql.ts";
import { type SmallDisk, smallDisk } from "../../_disk.ts";
import { waitFor } from "../../rely/_server.ts";
import { tmpDir } from "../../test_utils.ts";
import { type TestApi, testApi } from "./_api.ts";
import { apiOnSmallDisk } from "./_disk_api.ts";

/** The LibSQL storage in `folder`, its client meeting the faults of `disk` when it is there. */
function libsqlIn(folder: string, disk?: SmallDisk): { storage: LibSQL; path: string } {
  const path = join(folder, "sources.db");
  let opened: Promise<LibSQLBackend> | undefined;
  const storage = new class extends LibSQL {
    protected override backend(): Promise<IndexBackend> {
      const client = createClient({ url: `file:${path}` });
      return opened ??= LibSQLBackend.open(disk ? disk.client(client) : client, {
        reclaimSpace: true,
      });
    }
  }();
  return { storage, path };
}

/** The links of a chat that the LibSQL storage's file holds. */
function links(path: string, chatId: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number(
      db.prepare("SELECT count(*) AS n FROM rag_links WHERE chat_id = ?").get(chatId)!.n,
    );
  } finally {
    db.close();
  }
}

/** A prepared chat of the LibSQL storage over one document. */
async function preparedChat(api: TestApi): Promise<string> {
  const { document } = await api.upload("a.md", "# Apples\n\nApples are red.\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "to delete",
    source_storage: "LibSQL",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  })).json();
  assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
  return chat.id;
}

Deno.test("DELETE /chats/{id} that the database refuses on a full disk leaves the chat prepared with its indexes, and deletes it once there is space", async () => {
  await using disk = await smallDisk(4 * 1024 * 1024);
  await using elsewhere = await tmpDir();
  const { storage, path } = libsqlIn(elsewhere.path);
  await using api = await apiOnSmallDisk(disk, { sourceStorages: [storage] });
  const chatId = await preparedChat(api);

  await disk.fill();
  const refused = await api.call("DELETE", `/chats/${chatId}`);
  assert.equal(refused.status, 507);
  assert.equal(
    (await refused.json()).error.message,
    "Cannot write to the database: the disk is full",
  );
  const kept = await (await api.call("GET", `/chats/${chatId}`)).json();
  assert.equal(kept.prepared, true);
  assert.equal(links(path, chatId), 1, "its document is still linked to its index");

  await disk.free();
  assert.equal((await api.call("DELETE", `/chats/${chatId}`)).status, 200);
  assert.equal((await api.call("GET", `/chats/${chatId}`)).status, 404);
  assert.equal(links(path, chatId), 0);
});

Deno.test("a chat deleted while its storage cannot forget it on a full disk is forgotten by the storage once there is space", async () => {
  await using disk = await smallDisk(4 * 1024 * 1024);
  const { storage, path } = libsqlIn(disk.path, disk);
  await using api = await testApi({ sourceStorages: [storage] });
  const chatId = await preparedChat(api);

  await disk.fill();
  assert.equal((await api.call("DELETE", `/chats/${chatId}`)).status, 200);
  assert.equal((await api.call("GET", `/chats/${chatId}`)).status, 404);
  assert.equal(links(path, chatId), 1, "the storage could not forget it yet");
  const warned = api.logs.map((line) => JSON.parse(line)).find((line) =>
    line.level === "warn" &&
    line.message.startsWith("Cannot remove the indexes of the deleted chat")
  );
  assert.ok(warned, api.logs.join("\n"));

  await disk.free();
  await waitFor("the storage to forget the chat", () => links(path, chatId) === 0 || undefined);
});
