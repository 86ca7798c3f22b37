import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../../server/database/mod.ts";
import { smallDisk } from "../../_disk.ts";
import { tmpDir } from "../../test_utils.ts";
import { chat, document, freshDatabase, KINDS, message, source, svcError } from "./_helpers.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

for (const kind of KINDS) {
  Deno.test(`Database.addDocument() and getDocument() round-trip a document with metadata (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const stored = { ...document("d1", "Report 2026.pdf"), metadata: { path: "/x", size: 3 } };
    await fresh.db.addDocument("ada", stored);
    assert.deepEqual(await fresh.db.getDocument("ada", "d1"), stored);
  });

  Deno.test(`Database.getDocument() answers 404 for a missing or another user's document (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", document("d1"));
    await assert.rejects(fresh.db.getDocument("ada", "nope"), svcError(404, 'No document "nope"'));
    await assert.rejects(fresh.db.getDocument("bob", "d1"), svcError(404, 'No document "d1"'));
  });

  Deno.test(`Database.getDocuments() keeps the order asked for and names every missing id (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    for (const id of ["a", "b", "c"]) await fresh.db.addDocument("ada", document(id));
    await fresh.db.addDocument("bob", document("theirs"));
    const found = await fresh.db.getDocuments("ada", ["c", "a", "b", "a"]);
    assert.deepEqual(found.map((d) => d.id), ["c", "a", "b", "a"]);
    assert.notEqual(found[1], found[3], "each place gets its own object");
    assert.deepEqual(await fresh.db.getDocuments("ada", []), []);
    await assert.rejects(
      fresh.db.getDocuments("ada", ["a", "x", "theirs"]),
      svcError(404, 'No documents "x", "theirs"'),
    );
  });

  Deno.test(`Database.addDocument() refuses an id that is taken, and keeps the first (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", document("d1", "first.md"));
    await assert.rejects(
      fresh.db.addDocument("bob", document("d1", "second.md")),
      svcError(409, /^Cannot save document "d1": UNIQUE constraint failed/),
    );
    assert.equal((await fresh.db.getDocument("ada", "d1")).name, "first.md");
  });

  Deno.test(`Database.addDocument() stores names and metadata with quotes and non-ASCII as they are (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const odd = {
      id: "é'; DROP TABLE documents; --",
      name: 'Ünïcödé "quoted" 📄.md',
      metadata: {},
    };
    await fresh.db.addDocument("Zoë O'Brien", odd);
    assert.deepEqual(await fresh.db.getDocument("Zoë O'Brien", odd.id), odd);
  });

  Deno.test(`Database.recordSize() keeps a user's uploads within the limit, each document counted once (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    for (const id of ["d1", "d2", "d3"]) await fresh.db.addDocument("ada", document(id));
    await fresh.db.addDocument("bob", document("b1"));
    assert.equal(await fresh.db.storageUsed("ada"), 0);

    assert.deepEqual(await fresh.db.recordSize("ada", "d1", 600, 1000), {
      recorded: true,
      used: 0,
    });
    assert.deepEqual(await fresh.db.recordSize("bob", "b1", 900, 1000), {
      recorded: true,
      used: 0,
    });
    assert.deepEqual(await fresh.db.recordSize("ada", "d2", 401, 1000), {
      recorded: false,
      used: 600,
    });
    assert.equal(await fresh.db.storageUsed("ada"), 600);
    assert.deepEqual((await fresh.db.getDocument("ada", "d2")).metadata, document("d2").metadata);
    // Exactly at the limit is within it; a document uploaded again counts with its new size.
    assert.deepEqual(await fresh.db.recordSize("ada", "d2", 400, 1000), {
      recorded: true,
      used: 600,
    });
    assert.deepEqual(await fresh.db.recordSize("ada", "d1", 100, 1000), {
      recorded: true,
      used: 400,
    });
    assert.equal(await fresh.db.storageUsed("ada"), 500);
    assert.equal((await fresh.db.getDocument("ada", "d1")).metadata.size, 100);
    assert.equal(await fresh.db.storageUsed("bob"), 900);
    await assert.rejects(
      fresh.db.recordSize("bob", "d3", 1, 1000),
      svcError(404, 'No document "d3"'),
    );
  });

  Deno.test(`Database.addDocument() counts the registrations that wait for their file, and removes those expired (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const db = fresh.db;
    const limits = (now: number) => ({
      now,
      maxPending: 2,
      countedSince: now - 300,
      expireBefore: now - 1000,
    });
    assert.deepEqual(await db.addDocument("ada", document("d1"), limits(1000)), {
      added: true,
      pending: 0,
      oldestPending: undefined,
    });
    assert.equal((await db.addDocument("ada", document("d2"), limits(1100))).added, true);
    assert.deepEqual(await db.addDocument("ada", document("d3"), limits(1200)), {
      added: false,
      pending: 2,
      oldestPending: 1000,
    });
    await assert.rejects(db.getDocument("ada", "d3"), { status: 404 });
    assert.equal((await db.addDocument("bob", document("b1"), limits(1200))).added, true);
    // An upload that recorded its size waits no more; a registration past the window counts no more.
    await db.recordSize("ada", "d1", 10, 1000);
    assert.equal((await db.addDocument("ada", document("d3"), limits(1200))).added, true);
    assert.equal((await db.addDocument("ada", document("d4"), limits(1450))).added, true);
    // Past the expiry, the waiting registrations go, but not one a chat uses, nor an uploaded one.
    await db.addChat("ada", chat("c1", [document("d3")]));
    assert.deepEqual(await db.addDocument("ada", document("d5"), limits(2500)), {
      added: true,
      pending: 0,
      oldestPending: undefined,
    });
    const ids = (await db.getDocuments("ada", ["d1", "d3", "d5"])).map((d) => d.id);
    assert.deepEqual(ids, ["d1", "d3", "d5"]);
    for (const gone of ["d2", "d4"]) {
      await assert.rejects(db.getDocument("ada", gone), { status: 404 });
    }
    assert.equal((await db.getDocument("bob", "b1")).id, "b1", "another user's stay");
  });

  Deno.test(`Database.listDocuments() lists the user's uploaded documents newest first, with size, pages and the chats that use each (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const { db } = fresh;
    const register = (id: string, now: number) => db.addDocument("ada", document(id), { now });
    await register("old", 1000);
    await register("new", 2000);
    await register("waiting", 3000);
    await db.addDocument("bob", document("theirs"), { now: 4000 });
    await db.recordSize("ada", "old", 10, 1000);
    await db.recordSize("ada", "new", 20, 1000);
    await db.recordSize("bob", "theirs", 30, 1000);
    await db.addChat("ada", chat("c1", [document("old"), document("new")], { prepared: true }));
    await db.addChat("ada", chat("c2", [document("new")], { prepared: true }));
    // A chat that cites a document it no longer has still uses it.
    await db.addChat("ada", chat("c3", []));
    await db.addMessages("ada", "c3", [message("m", { sources: [source("s", document("old"))] })]);
    await db.recordPages("ada", { new: 12, theirs: 99 });

    assert.deepEqual(await db.listDocuments("ada"), [
      { id: "new", name: "new.md", size: 20, pages: 12, chats: ["c1", "c2"] },
      { id: "old", name: "old.md", size: 10, pages: null, chats: ["c1", "c3"] },
    ]);
    assert.deepEqual((await db.listDocuments("bob")).map((d) => [d.id, d.pages]), [[
      "theirs",
      null,
    ]]);
    assert.deepEqual(await db.listDocuments("carol"), []);

    await db.removeChatDocument("ada", "c2", "new");
    assert.deepEqual((await db.getChat("ada", "c2")).metadata.documents, []);
    assert.deepEqual((await db.listDocuments("ada"))[0]!.chats, ["c1"]);
    await assert.rejects(
      db.removeChatDocument("ada", "c2", "new"),
      svcError(404, 'The chat "c2" has no document "new"'),
    );
    await assert.rejects(
      db.removeChatDocument("ada", "c2", "theirs"),
      svcError(404, 'No document "theirs"'),
    );
    await assert.rejects(db.removeChatDocument("bob", "c1", "old"), svcError(404, 'No chat "c1"'));
    await db.removeChatDocument("ada", "c1", "new");
    await db.deleteDocument("ada", "new");
    assert.deepEqual((await db.listDocuments("ada")).map((d) => d.id), ["old"]);
  });

  Deno.test(`Database.deleteDocument() removes a document with its file and gives its bytes back (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await using dir = await tmpDir();
    const path = join(dir.path, "d1");
    await Deno.writeTextFile(path, "# Notes");
    await fresh.db.addDocument("ada", { id: "d1", name: "notes.md", metadata: { path } });
    await fresh.db.addDocument("ada", document("d2"));
    await fresh.db.recordSize("ada", "d1", 7, 1000);
    await fresh.db.recordSize("ada", "d2", 5, 1000);
    assert.equal(await fresh.db.storageUsed("ada"), 12);

    await assert.rejects(fresh.db.deleteDocument("bob", "d1"), svcError(404, 'No document "d1"'));
    await assert.rejects(
      fresh.db.deleteDocument("ada", "nope"),
      svcError(404, 'No document "nope"'),
    );
    assert.ok(await exists(path), "a refused deletion leaves the file");

    const removed = await fresh.db.deleteDocument("ada", "d1");
    assert.equal(removed.name, "notes.md");
    assert.equal(await exists(path), false);
    await assert.rejects(fresh.db.getDocument("ada", "d1"), svcError(404, 'No document "d1"'));
    assert.equal(await fresh.db.storageUsed("ada"), 5);
    // A document registered but never uploaded has no file to remove.
    await fresh.db.deleteDocument("ada", "d2");
    assert.equal(await fresh.db.storageUsed("ada"), 0);
  });

  Deno.test(`Database.deleteDocument() answers 409 naming the chats that use the document, removing nothing (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await using dir = await tmpDir();
    const path = join(dir.path, "d1");
    await Deno.writeTextFile(path, "# Notes");
    const d1 = { id: "d1", name: "notes.md", metadata: { path } };
    const d2 = document("d2");
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addDocument("ada", d2);
    await fresh.db.addChat("ada", chat("c1", [d1]));
    // A chat over another document whose answer cites this one uses it too.
    await fresh.db.addChat("ada", {
      ...chat("c2", [d2]),
      metadata: { ...chat("c2", [d2]).metadata, name: 'The "second"' },
    });
    await fresh.db.addMessages("ada", "c2", [message("m1", { sources: [source("s1", d1)] })]);

    await assert.rejects(
      fresh.db.deleteDocument("ada", "d1"),
      svcError(
        409,
        'Cannot delete the document "notes.md": the chats "Chat c1" and "The \\"second\\"" ' +
          "use it; delete them first",
      ),
    );
    assert.ok(await exists(path));
    assert.equal((await fresh.db.getDocument("ada", "d1")).name, "notes.md");

    await fresh.db.deleteChat("ada", "c1");
    await assert.rejects(
      fresh.db.deleteDocument("ada", "d1"),
      svcError(
        409,
        'Cannot delete the document "notes.md": the chat "The \\"second\\"" uses it; ' +
          "delete it first",
      ),
    );
    await fresh.db.deleteChat("ada", "c2");
    await fresh.db.deleteDocument("ada", "d1");
    assert.equal(await exists(path), false);
    assert.equal((await fresh.db.getDocument("ada", "d2")).id, "d2");
  });
}

Deno.test("Database.deleteDocument() keeps the document when its file is on a read-only disk", async () => {
  await using dir = await tmpDir();
  await using disk = await smallDisk(1024 * 1024);
  // On its thread unless faults are injected, which reach this thread only.
  const db = await openDatabase(`sqlite:///${dir.path}/svc.db`, {
    localRoot: dir.path,
    thread: disk.kind === "tmpfs",
  });
  try {
    const path = join(disk.path, "d1");
    await Deno.writeTextFile(path, "# Notes");
    await db.addDocument("ada", { id: "d1", name: "notes.md", metadata: { path } });
    await disk.readOnly();
    await assert.rejects(
      db.deleteDocument("ada", "d1"),
      svcError(503, 'Cannot delete the file of "notes.md": the disk is read-only'),
    );
    assert.equal((await db.getDocument("ada", "d1")).name, "notes.md");
    await disk.writable();
    await db.deleteDocument("ada", "d1");
    assert.equal(await exists(path), false);
  } finally {
    await db.close();
  }
});
