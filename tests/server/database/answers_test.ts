import assert from "node:assert/strict";
import { LOST_ANSWER } from "../../../server/database/message_json.ts";
import { chat, document, freshDatabase, KINDS, message, source, svcError } from "./_helpers.ts";

const d1 = document("d1");

/** A prepared chat "c1" of ada's, over d1, with a welcome. */
async function preparedChat(kind: (typeof KINDS)[number]) {
  const fresh = await freshDatabase(kind);
  await fresh.db.addDocument("ada", d1);
  await fresh.db.addChat("ada", chat("c1", [d1]));
  await fresh.db.setPrepared("ada", "c1", message("w", { role: "system" }));
  return fresh;
}

for (const kind of KINDS) {
  Deno.test(`Database lists a running answer as "streaming" with its text so far, saved as it grows, until it ends (${kind})`, async () => {
    await using fresh = await preparedChat(kind);
    const { db } = fresh;
    const now = Date.now();
    const answer = message("a1", { role: "assistant", content: "", sources: [source("s1", d1)] });
    await db.addMessages("ada", "c1", [message("q1"), { ...answer, runsUntil: now + 60_000 }]);
    const listed = async () => (await db.getChat("ada", "c1")).messages.at(-1)!;
    assert.deepEqual(await listed(), { ...answer, status: "streaming" });

    const stops = await db.saveAnswers([{ id: "a1", content: "Half [1]", citations: [1] }], {
      until: now + 60_000,
      now,
    });
    assert.deepEqual(stops, []);
    assert.deepEqual(await listed(), {
      ...answer,
      content: "Half [1]",
      citations: [1],
      status: "streaming",
    });
    assert.equal((await db.listChatSummaries("ada"))[0]!.num_messages, 3);

    await db.finishAnswer({ id: "a1", content: "Half [1] and whole", citations: [1] });
    assert.deepEqual(await listed(), { ...answer, content: "Half [1] and whole", citations: [1] });
    assert.deepEqual(await db.stopAnswers("ada", "c1"), [], "nothing runs any more");
  });

  Deno.test(`Database.stopAnswers() asks the chat's running answers to stop, which stopsAsked() and saveAnswers() tell; another user's chat is 404 (${kind})`, async () => {
    await using fresh = await preparedChat(kind);
    const { db } = fresh;
    const until = Date.now() + 60_000;
    const running = (id: string) => ({
      ...message(id, { role: "assistant", content: "" }),
      runsUntil: until,
    });
    await db.addMessages("ada", "c1", [message("q1"), running("a1")]);
    await db.addMessages("ada", "c1", [message("q2"), running("a2")]);
    assert.deepEqual(await db.stopsAsked(["a1", "a2"]), [], "both run, unstopped");
    await assert.rejects(db.stopAnswers("bob", "c1"), svcError(404, 'No chat "c1"'));

    assert.deepEqual((await db.stopAnswers("ada", "c1")).sort(), ["a1", "a2"]);
    assert.deepEqual(
      (await db.stopsAsked(["a1", "a2", "gone"])).sort(),
      ["a1", "a2", "gone"],
      "an answer whose run is gone is to stop as well",
    );
    assert.deepEqual(
      await db.saveAnswers([{ id: "a1" }], { until, now: Date.now() }),
      ["a1"],
      "a tick that saves no text still hears of the stop",
    );
    await db.finishAnswer({
      id: "a1",
      content: "Cut",
      citations: [],
      status: "stopped",
      error: "The answer was stopped",
    });
    assert.deepEqual((await db.stopsAsked(["a1", "a2"])).sort(), ["a1", "a2"]);
    const a1 = await db.getMessage("ada", "c1", "a1");
    assert.deepEqual([a1.content, a1.status, a1.error], [
      "Cut",
      "stopped",
      "The answer was stopped",
    ]);
  });

  Deno.test(`Database tells a running answer whose lease ended as failed, and the next save ends it so (${kind})`, async () => {
    await using fresh = await preparedChat(kind);
    const { db } = fresh;
    const now = Date.now();
    const lost = { ...message("a1", { role: "assistant", content: "So far" }), runsUntil: now - 1 };
    await db.addMessages("ada", "c1", [message("q1"), lost]);
    const read = await db.getMessage("ada", "c1", "a1");
    assert.deepEqual([read.status, read.error], ["failed", LOST_ANSWER]);
    assert.deepEqual(
      JSON.parse(await db.listChatsJson("ada"))[0].messages[2],
      read,
      "the list writes it alike",
    );

    // Another run's save ends the lost one for good.
    const alive = { ...message("a2", { role: "assistant", content: "" }), runsUntil: now + 60_000 };
    await db.addMessages("ada", "c1", [message("q2"), alive]);
    await db.saveAnswers([{ id: "a2" }], { until: now + 60_000, now });
    assert.deepEqual(await db.stopAnswers("ada", "c1"), ["a2"], "only a2 still runs");
    assert.deepEqual(await db.getMessage("ada", "c1", "a1"), read);
  });

  Deno.test(`Database.deleteChat() removes a chat whose answer is running (${kind})`, async () => {
    await using fresh = await preparedChat(kind);
    const { db } = fresh;
    const running = { ...message("a1", { role: "assistant" }), runsUntil: Date.now() + 60_000 };
    await db.addMessages("ada", "c1", [message("q1"), running]);
    await db.deleteChat("ada", "c1");
    await assert.rejects(db.getChat("ada", "c1"), svcError(404, 'No chat "c1"'));
    // The run's end finds nothing to end.
    assert.deepEqual(await db.stopsAsked(["a1"]), ["a1"], "its run went with the chat");
    await db.finishAnswer({ id: "a1", content: "Late", citations: [] });
  });

  Deno.test(`Database.editQuestion() keeps the edited question and what followed it as its branch, and lists the new wording with its versions (${kind})`, async () => {
    await using fresh = await preparedChat(kind);
    const { db } = fresh;
    const answer = (id: string, question: string) => ({
      ...message(id, { role: "assistant" }),
      question,
    });
    await db.addMessages("ada", "c1", [message("q1"), answer("a1", "q1")]);
    await db.addMessages("ada", "c1", [message("q2"), answer("a2", "q2")]);
    await db.addMessages("ada", "c1", [message("q3"), answer("a3", "q3")]);
    const q2 = await db.getMessage("ada", "c1", "q2");

    const edited = message("q2b", { content: "Reworded" });
    await db.editQuestion("ada", "c1", "q2", edited);
    await db.addMessages("ada", "c1", [answer("a2b", "q2b")]);
    const { messages } = await db.getChat("ada", "c1");
    assert.deepEqual(messages.map((m) => m.id), ["w", "q1", "a1", "q2b", "a2b"]);
    assert.deepEqual(messages[3], { ...edited, versions: [q2, edited] });
    assert.deepEqual(JSON.parse(await db.listChatsJson("ada"))[0].messages, messages);
    assert.equal((await db.listChatSummaries("ada"))[0]!.num_messages, 5);
    assert.deepEqual(await db.lastQuestion("ada", "c1"), { id: "q2b", content: "Reworded" });

    const ids = async (id: string) => (await db.getBranch("ada", "c1", id)).map((m) => m.id);
    assert.deepEqual(await ids("q2"), ["q2", "a2", "q3", "a3"], "the branch the edit replaced");
    assert.deepEqual(await ids("q2b"), ["q2b", "a2b"], "the conversation from the new wording");
    assert.deepEqual(await ids("q1"), ["q1", "a1", "q2b", "a2b"]);
    const [first] = await db.getBranch("ada", "c1", "q2");
    assert.deepEqual(first, { ...q2, versions: [q2, edited] });

    // The new wording edited again: three versions, each with its branch.
    await db.editQuestion("ada", "c1", "q2b", message("q2c", { content: "Third" }));
    const third = (await db.getChat("ada", "c1")).messages.at(-1)!;
    assert.deepEqual(third.versions!.map((m) => m.id), ["q2", "q2b", "q2c"]);
    assert.deepEqual(await ids("q2b"), ["q2b", "a2b"]);

    await assert.rejects(
      db.editQuestion("ada", "c1", "q3", message("x")),
      svcError(400, /not one an edit replaced/),
    );
    await assert.rejects(db.editQuestion("ada", "c1", "a1", message("x")), svcError(400, /answer/));
    await assert.rejects(db.getBranch("ada", "c1", "a1"), svcError(400, /Only a question/));
    await assert.rejects(
      db.editQuestion("ada", "c1", "nope", message("x")),
      svcError(404, 'No message "nope" in chat "c1"'),
    );
    await assert.rejects(db.getBranch("bob", "c1", "q2"), svcError(404, 'No chat "c1"'));
  });

  Deno.test(`Database.setFeedback() rates an answer, any version of it, and ratedAnswers() lists the good ones with the sources they cite (${kind})`, async () => {
    await using fresh = await preparedChat(kind);
    const { db } = fresh;
    const [s1, s2] = [source("s1", d1), source("s2", d1)];
    const cites = { ...message("a1", { role: "assistant", sources: [s1, s2], citations: [2] }) };
    const plain = { ...message("a2", { role: "assistant", sources: [s1] }) };
    await db.addMessages("ada", "c1", [message("q1", { content: "Where?" }), cites]);
    await db.addMessages("ada", "c1", [message("q2", { content: "When?" }), plain]);
    const good = {
      rating: "good" as const,
      note: "Spot on",
      timestamp: "2026-11-26T00:00:00.000Z",
    };
    await db.setFeedback("ada", "c1", "a1", good);
    await db.setFeedback("ada", "c1", "a2", { rating: "bad", timestamp: good.timestamp });
    assert.deepEqual((await db.getMessage("ada", "c1", "a1")).feedback, good);
    assert.deepEqual(
      JSON.parse(await db.listChatsJson("ada"))[0].messages[2].feedback,
      good,
      "the list writes it alike",
    );

    assert.deepEqual(await db.ratedAnswers("good"), [
      { user: "ada", chat: "c1", question: "Where?", sources: [s2] },
    ]);
    assert.deepEqual(await db.ratedAnswers("bad", "ada"), [
      { user: "ada", chat: "c1", question: "When?", sources: [s1] },
    ]);
    assert.deepEqual(await db.ratedAnswers("good", "bob"), []);

    await db.setFeedback("ada", "c1", "a1", null);
    assert.equal((await db.getMessage("ada", "c1", "a1")).feedback, undefined);
    assert.deepEqual(await db.ratedAnswers("good"), []);
    await assert.rejects(
      db.setFeedback("ada", "c1", "q1", good),
      svcError(400, "Only an answer takes feedback, not a question or the welcome"),
    );
    await assert.rejects(db.setFeedback("bob", "c1", "a1", good), svcError(404, 'No chat "c1"'));
  });
}
