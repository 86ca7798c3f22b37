import assert from "node:assert/strict";
import type { ChatRecord } from "../../../server/database/mod.ts";
import { chat, document, freshDatabase, KINDS, message, source, svcError } from "./_helpers.ts";

const d1 = document("d1", "alpha.md");
const d2 = document("d2", "beta.pdf");
const d3 = document("d3", "gamma.docx");

for (const kind of KINDS) {
  Deno.test(`Database.addChat() and getChat() round-trip a chat with documents in order (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    for (const d of [d1, d2, d3]) await fresh.db.addDocument("ada", d);
    const created = chat("c1", [d3, d1, d2]);
    await fresh.db.addChat("ada", created);
    const got = await fresh.db.getChat("ada", "c1");
    assert.deepEqual(got, created);
    assert.deepEqual(got.metadata.documents, [
      { id: "d3", name: "gamma.docx" },
      { id: "d1", name: "alpha.md" },
      { id: "d2", name: "beta.pdf" },
    ]);
  });

  Deno.test(`Database.addChat() stores a prepared chat with its messages and sources (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    const created: ChatRecord = chat("c1", [d1], {
      prepared: true,
      messages: [
        message("m1", { role: "system" }),
        message("m2", { role: "user" }),
        message("m3", { role: "assistant", sources: [source("s1", d1), source("s2", d1)] }),
      ],
    });
    await fresh.db.addChat("ada", created);
    assert.deepEqual(await fresh.db.getChat("ada", "c1"), created);
  });

  Deno.test(`Database.addChat() refuses a document that is missing or another user's, saving nothing (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addDocument("bob", d2);
    await assert.rejects(
      fresh.db.addChat("ada", chat("c1", [d1, d2, document("nope")])),
      svcError(404, 'No documents "d2", "nope"'),
    );
    await assert.rejects(fresh.db.getChat("ada", "c1"), svcError(404, 'No chat "c1"'));
    assert.deepEqual(await fresh.db.listChats("ada"), []);
  });

  Deno.test(`Database.addChat() refuses a chat id that is taken (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addChat("ada", chat("c1", []));
    await assert.rejects(fresh.db.addChat("bob", chat("c1", [])), svcError(409, /"c1"/));
    assert.deepEqual(await fresh.db.listChats("bob"), []);
  });

  Deno.test(`Database.getChat() and listChats() keep two users apart (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addDocument("bob", d2);
    await fresh.db.addChat("ada", chat("ada-chat", [d1]));
    await fresh.db.addChat("bob", chat("bob-chat", [d2]));
    assert.deepEqual((await fresh.db.listChats("ada")).map((c) => c.id), ["ada-chat"]);
    assert.deepEqual((await fresh.db.listChats("bob")).map((c) => c.id), ["bob-chat"]);
    assert.deepEqual(await fresh.db.listChats("nobody"), []);
    await assert.rejects(fresh.db.getChat("bob", "ada-chat"), svcError(404, 'No chat "ada-chat"'));
    const welcome = message("w");
    await assert.rejects(
      fresh.db.setPrepared("bob", "ada-chat", welcome),
      svcError(404, /ada-chat/),
    );
    await assert.rejects(fresh.db.addMessages("bob", "ada-chat", [welcome]), svcError(404, /ada/));
    await assert.rejects(
      fresh.db.deleteChat("bob", "ada-chat"),
      svcError(404, 'No chat "ada-chat"'),
    );
    await assert.rejects(
      fresh.db.addMessages("ada", "ada-chat", [message("m", { sources: [source("s", d2)] })]),
      svcError(404, 'No document "d2"'),
    );
    assert.equal((await fresh.db.getChat("ada", "ada-chat")).messages.length, 0);
  });

  Deno.test(`Database.setPrepared() marks the chat prepared and appends the welcome message (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addChat("ada", chat("c1", []));
    const welcome = message("w", { role: "system", content: "How can I help you?" });
    await fresh.db.setPrepared("ada", "c1", welcome);
    const got = await fresh.db.getChat("ada", "c1");
    assert.equal(got.prepared, true);
    assert.deepEqual(got.messages, [welcome]);
    await assert.rejects(
      fresh.db.setPrepared("ada", "c1", message("w2")),
      svcError(400, 'Chat "c1" is already prepared'),
    );
    assert.deepEqual((await fresh.db.getChat("ada", "c1")).messages, [welcome]);
  });

  Deno.test(`Database.addMessages() keeps messages in insertion order, equal timestamps included (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    for (const d of [d1, d2]) await fresh.db.addDocument("ada", d);
    await fresh.db.addChat("ada", chat("c1", [d1, d2]));
    const same = "2026-11-26T01:02:03.456Z";
    const first = [message("z", { timestamp: same }), message("a", { timestamp: same })];
    const answer = message("m", {
      role: "assistant",
      timestamp: same,
      sources: [source("s3", d2), source("s1", d1), source("s2", d1), source("s0", d2)],
    });
    await fresh.db.setPrepared("ada", "c1", message("w", { role: "system", timestamp: same }));
    await fresh.db.addMessages("ada", "c1", first);
    await fresh.db.addMessages("ada", "c1", [
      answer,
      message("earlier", { timestamp: "2000-01-01T00:00:00.000Z" }),
    ]);
    const got = await fresh.db.getChat("ada", "c1");
    assert.deepEqual(got.messages.map((m) => m.id), ["w", "z", "a", "m", "earlier"]);
    assert.deepEqual(got.messages[3], answer);
    assert.deepEqual(got.messages[3]!.sources.map((s) => s.id), ["s3", "s1", "s2", "s0"]);
  });

  Deno.test(`Database.addMessages() lists answers stored out of order after their questions, and a question answered again its latest answer with every version (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addChat("ada", chat("c1", [d1]));
    await fresh.db.setPrepared("ada", "c1", message("w", { role: "system" }));
    // Two answers in flight: the second question's ends first.
    await fresh.db.addMessages("ada", "c1", [message("q1")]);
    await fresh.db.addMessages("ada", "c1", [message("q2")]);
    const a2 = { ...message("a2", { role: "assistant", sources: [source("s2", d1)] }) };
    await fresh.db.addMessages("ada", "c1", [{ ...a2, question: "q2" }]);
    const a1 = message("a1", { role: "assistant", sources: [source("s1", d1)] });
    await fresh.db.addMessages("ada", "c1", [{ ...a1, question: "q1" }]);
    const ids = async () => (await fresh.db.getChat("ada", "c1")).messages.map((m) => m.id);
    assert.deepEqual(await ids(), ["w", "q1", "a1", "q2", "a2"]);
    assert.deepEqual((await fresh.db.getChat("ada", "c1")).messages[2], a1, "as it was stored");
    assert.deepEqual(JSON.parse(await fresh.db.listChatsJson("ada"))[0].messages[2], a1);

    assert.deepEqual(await fresh.db.lastQuestion("ada", "c1"), {
      id: "q2",
      content: "Content of q2",
    });
    const again = message("a2-again", { role: "assistant" });
    await fresh.db.addMessages("ada", "c1", [{ ...again, question: "q2" }]);
    // An answer that names no question answers the last one.
    await fresh.db.addMessages("ada", "c1", [message("q3"), message("a3", { role: "assistant" })]);
    assert.deepEqual(await ids(), ["w", "q1", "a1", "q2", "a2-again", "q3", "a3"]);
    const listed = (await fresh.db.getChat("ada", "c1")).messages[4]!;
    assert.deepEqual(listed, { ...again, versions: [a2, again] }, "the latest, then every version");
    assert.deepEqual(await fresh.db.getMessage("ada", "c1", "a2"), {
      ...a2,
      versions: [a2, again],
    });
    assert.deepEqual(JSON.parse(await fresh.db.listChatsJson("ada"))[0].messages[4], listed);
    assert.equal((await fresh.db.listChatSummaries("ada"))[0]!.num_messages, 7);
    assert.deepEqual(await fresh.db.lastQuestion("ada", "c1"), {
      id: "q3",
      content: "Content of q3",
    });
    if (fresh.rows) assert.equal((await fresh.rows()).sources, 2, "a2's source stays with it");
  });

  Deno.test(`Database.addMessages() reuses a source id seen again instead of storing it twice (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addChat("ada", chat("c1", [d1], { prepared: true }));
    const shared = source("s1", d1);
    await fresh.db.addMessages("ada", "c1", [message("m1", { sources: [shared] })]);
    await fresh.db.addMessages("ada", "c1", [
      message("m2", { sources: [shared, source("s2", d1)] }),
      message("m3", { sources: [shared] }),
    ]);
    const got = await fresh.db.getChat("ada", "c1");
    assert.deepEqual(got.messages.map((m) => m.sources.map((s) => s.id)), [
      ["s1"],
      ["s1", "s2"],
      ["s1"],
    ]);
    assert.deepEqual(got.messages[2]!.sources[0], shared);
    assert.notEqual(got.messages[0]!.sources[0], got.messages[1]!.sources[0]);
    const rows = await fresh.rows?.();
    if (rows !== undefined) {
      assert.equal(rows.sources, 2);
      assert.equal(rows.message_sources, 4);
    }
  });

  Deno.test(`Database.addMessages() leaves nothing when a later step fails (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addChat("ada", chat("c1", [d1], { prepared: true }));
    await fresh.db.addMessages("ada", "c1", [message("kept", { sources: [source("s0", d1)] })]);
    const before = await fresh.rows?.();
    // The third message repeats the first one's id: the constraint fails after
    // the first two messages and their sources were written.
    await assert.rejects(
      fresh.db.addMessages("ada", "c1", [
        message("m1", { sources: [source("s1", d1), source("s2", d1)] }),
        message("m2", { sources: [source("s3", d1)] }),
        message("m1"),
      ]),
      svcError(409, /^Cannot save message "m1": UNIQUE constraint failed: messages\.id$/),
    );
    // A source of a document that does not exist is refused before anything is written.
    await assert.rejects(
      fresh.db.addMessages("ada", "c1", [
        message("m4", { sources: [source("s4", d1)] }),
        message("m5", { sources: [source("s5", document("ghost"))] }),
      ]),
      svcError(404, 'No document "ghost"'),
    );
    assert.deepEqual((await fresh.db.getChat("ada", "c1")).messages.map((m) => m.id), ["kept"]);
    if (before !== undefined) assert.deepEqual(await fresh.rows!(), before);
    // The positions were not used up: the next message follows the kept one.
    await fresh.db.addMessages("ada", "c1", [message("next")]);
    assert.deepEqual((await fresh.db.getChat("ada", "c1")).messages.map((m) => m.id), [
      "kept",
      "next",
    ]);
  });

  Deno.test(`Database.setPrepared() leaves the chat unprepared when the welcome cannot be saved (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addChat("ada", chat("c1", [], { messages: [message("m1")] }));
    await assert.rejects(fresh.db.setPrepared("ada", "c1", message("m1")), svcError(409, /"m1"/));
    const got = await fresh.db.getChat("ada", "c1");
    assert.equal(got.prepared, false);
    assert.equal(got.messages.length, 1);
  });

  Deno.test(`Database.addChat() leaves no chat and no links when a message cannot be saved (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    const before = await fresh.rows?.();
    await assert.rejects(
      fresh.db.addChat("ada", chat("c1", [d1], { messages: [message("m1"), message("m1")] })),
      svcError(409, /^Cannot save message "m1"/),
    );
    await assert.rejects(fresh.db.getChat("ada", "c1"), svcError(404, 'No chat "c1"'));
    if (before !== undefined) assert.deepEqual(await fresh.rows!(), before);
  });

  Deno.test(`Database.listChats() returns chats oldest first with all their messages and sources (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    for (const d of [d1, d2]) await fresh.db.addDocument("ada", d);
    const expected: ChatRecord[] = [];
    for (const id of ["c-b", "c-a", "c-c"]) {
      const created = chat(id, id === "c-a" ? [d2, d1] : [d1]);
      await fresh.db.addChat("ada", created);
      const welcome = message(`${id}-w`, { role: "system" });
      await fresh.db.setPrepared("ada", id, welcome);
      const messages = [
        message(`${id}-q`),
        message(`${id}-a`, {
          role: "assistant",
          sources: [source(`${id}-s2`, d1), source("s", d1)],
        }),
      ];
      await fresh.db.addMessages("ada", id, messages);
      expected.push({ ...created, prepared: true, messages: [welcome, ...messages] });
    }
    assert.deepEqual(await fresh.db.listChats("ada"), expected);
    assert.deepEqual(JSON.parse(await fresh.db.listChatsJson("ada")), expected);
    assert.equal(await fresh.db.listChatsJson("nobody"), "[]");
  });

  Deno.test(`Database.listChatsJson() is the JSON of listChats(), unprepared chats, parameters and chats without documents included (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    const bare = chat("bare", []);
    bare.metadata.params = { top_k: 3, ratio: 0.25, note: 'a "quoted"\nline' };
    await fresh.db.addChat("ada", bare);
    await fresh.db.addChat("ada", chat("unprepared", [d1]));
    await fresh.db.addChat("ada", chat("asked", [d1]));
    await fresh.db.setPrepared("ada", "asked", message("w", { role: "system" }));
    await fresh.db.addMessages("ada", "asked", [
      message("q", { content: "Ünïcode, \u0001 and \t tabs" }),
      message("a", { role: "assistant", sources: [source("s", d1)] }),
    ]);
    const listed = await fresh.db.listChats("ada");
    assert.equal(listed.length, 3);
    assert.equal(await fresh.db.listChatsJson("ada"), JSON.stringify(listed));
  });

  Deno.test(`Database.addChat() refuses a chat past maxChats with 429 and saves nothing of it (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addChat("ada", chat("c1", [d1]), { maxChats: 2 });
    await fresh.db.addChat("bob", chat("b1", []), { maxChats: 1 });
    const before = await fresh.rows?.();
    // Chats created at once are counted one after the other: never more than the limit.
    const results = await Promise.allSettled(
      ["c2", "c3", "c4"].map((id) => fresh.db.addChat("ada", chat(id, [d1]), { maxChats: 2 })),
    );
    assert.deepEqual(results.map((result) => result.status), ["fulfilled", "rejected", "rejected"]);
    for (const result of results.slice(1)) {
      svcError(
        429,
        "You have 2 chats, the most one user may have: delete a chat to create another",
      )(
        (result as PromiseRejectedResult).reason,
      );
    }
    assert.deepEqual((await fresh.db.listChats("ada")).map((c) => c.id), ["c1", "c2"]);
    if (before !== undefined) {
      const after = await fresh.rows!();
      assert.equal(after.chats, before.chats! + 1);
      assert.equal(after.chat_documents, before.chat_documents! + 1);
    }
    await fresh.db.deleteChat("ada", "c1");
    await fresh.db.addChat("ada", chat("c5", [d1]), { maxChats: 2 });
  });

  Deno.test(`Database.listChatSummaries() lists chats without messages: how many, and the last one's time (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    for (const d of [d1, d2]) await fresh.db.addDocument("ada", d);
    const quiet = chat("c-quiet", [d2, d1]);
    await fresh.db.addChat("ada", quiet);
    const busy = chat("c-busy", [d1]);
    await fresh.db.addChat("ada", busy);
    const welcome = message("w", { role: "system" });
    await fresh.db.setPrepared("ada", "c-busy", welcome);
    const last = message("a", { role: "assistant", sources: [source("s", d1)] });
    await fresh.db.addMessages("ada", "c-busy", [message("q"), last]);
    await fresh.db.addChat("bob", chat("c-bob", []));

    assert.deepEqual(await fresh.db.listChatSummaries("ada"), [
      {
        id: "c-quiet",
        metadata: quiet.metadata,
        prepared: false,
        num_messages: 0,
        last_activity: null,
      },
      {
        id: "c-busy",
        metadata: busy.metadata,
        prepared: true,
        num_messages: 3,
        last_activity: last.timestamp,
      },
    ]);
    assert.deepEqual(await fresh.db.listChatSummaries("eve"), []);
  });

  Deno.test(`Database.deleteChat() removes the chat, its messages and their links (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    for (const id of ["gone", "stays"]) {
      await fresh.db.addChat("ada", chat(id, [d1], { prepared: true }));
      await fresh.db.addMessages("ada", id, [
        message(`${id}-m`, { sources: [source("shared", d1), source(`${id}-own`, d1)] }),
      ]);
    }
    await fresh.db.deleteChat("ada", "gone");
    await assert.rejects(fresh.db.getChat("ada", "gone"), svcError(404, 'No chat "gone"'));
    await assert.rejects(fresh.db.deleteChat("ada", "gone"), svcError(404, 'No chat "gone"'));
    const [left] = await fresh.db.listChats("ada");
    assert.equal(left?.id, "stays");
    assert.deepEqual(left.messages[0]!.sources.map((s) => s.id), ["shared", "stays-own"]);
    assert.equal((await fresh.db.getDocument("ada", "d1")).id, "d1");
    const rows = await fresh.rows?.();
    if (rows !== undefined) {
      assert.deepEqual(rows, {
        users: 1,
        documents: 1,
        chats: 1,
        chat_documents: 1,
        messages: 1,
        sources: 2, // "shared" and "stays-own"; "gone-own" was linked by nothing else
        message_sources: 2,
      });
    }
  });

  Deno.test(`Database answers concurrent reads and writes without refusing any (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    await fresh.db.addDocument("ada", d1);
    await fresh.db.addChat("ada", chat("c1", [d1], { prepared: true }));
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      work.push(
        fresh.db.addMessages("ada", "c1", [message(`m${i}`, { sources: [source("s", d1)] })]),
      );
      work.push(fresh.db.listChats("ada"), fresh.db.getDocument("ada", "d1"));
    }
    await Promise.all(work);
    const ids = (await fresh.db.getChat("ada", "c1")).messages.map((m) => m.id);
    assert.deepEqual(ids, Array.from({ length: 20 }, (_, i) => `m${i}`));
  });

  Deno.test(`Database.close() waits for writes under way, then refuses calls with 503 (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const writing = fresh.db.addChat("ada", chat("c1", []));
    await fresh.db.close();
    await writing;
    await assert.rejects(fresh.db.listChats("ada"), svcError(503, /is closed$/));
    await assert.rejects(fresh.db.addChat("ada", chat("c2", [])), svcError(503, /is closed$/));
  });
}

Deno.test("Database.deleteChat() gives the space of a file's deleted rows back to the disk", async () => {
  await using fresh = await freshDatabase("file");
  const onDisk = async () => {
    const size = (file: string) => Deno.stat(file).then((s) => s.size, () => 0);
    return await size(fresh.path!) + await size(`${fresh.path}-wal`);
  };
  await fresh.db.addDocument("ada", d1);
  const empty = await onDisk();
  const long = Array.from(
    { length: 20 },
    (_, i) => message(`m${i}`, { content: "x".repeat(100_000) }),
  );
  await fresh.db.addChat("ada", chat("long", [d1], { messages: long }));
  const full = await onDisk();
  assert.ok(full - empty > 2_000_000, `the chat took ${full - empty} bytes`);
  await fresh.db.deleteChat("ada", "long");
  const after = await onDisk();
  assert.ok(after - empty < (full - empty) / 10, `${after - empty} of ${full - empty} bytes stay`);
  assert.equal((await fresh.db.getDocument("ada", "d1")).id, "d1");
});
