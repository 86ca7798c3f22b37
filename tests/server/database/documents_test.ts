import assert from "node:assert/strict";
import { document, freshDatabase, KINDS, svcError } from "./_helpers.ts";

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
}
