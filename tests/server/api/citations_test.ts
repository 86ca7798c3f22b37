import assert from "node:assert/strict";
import { Assistant } from "../../../components/core/component.ts";
import { Citations, citationsOf } from "../../../server/api/citations.ts";
import { testApi } from "./_api.ts";

Deno.test("Citations reads [n], [n, m] and [n][m] markers, each source once, in the order first cited", () => {
  assert.deepEqual(citationsOf("A [3]. B [1, 2]. C [2][3]. D [ 1 ; 3 ].", 3), [3, 1, 2]);
  assert.deepEqual(citationsOf("No markers here.", 3), []);
});

Deno.test("Citations leaves out numbers without a source and brackets that are not markers", () => {
  assert.deepEqual(citationsOf("[0] [4] [12] [a] [1-2] [] [2 3] [link](x) [1]", 3), [1]);
  assert.deepEqual(citationsOf("Cited [2] with no sources", 0), []);
});

Deno.test("Citations reads a marker cut between chunks, wherever the cut falls", () => {
  const text = "Cardamom [2] in December [1, 3][2] and [9].";
  for (let cut = 0; cut <= text.length; cut++) {
    for (let second = cut; second <= text.length; second += 3) {
      const citations = new Citations(3);
      citations.read(text.slice(0, cut));
      citations.read(text.slice(cut, second));
      citations.read(text.slice(second));
      assert.deepEqual(citations.cited, [2, 1, 3], `cut at ${cut} and ${second}`);
    }
  }
});

Deno.test("Citations reads a marker that arrives a character at a time", () => {
  const citations = new Citations(2);
  for (const character of "See [1,\n 2]!") citations.read(character);
  assert.deepEqual(citations.cited, [1, 2]);
});

Deno.test("Citations forgets an opening bracket that no marker follows", () => {
  const citations = new Citations(2);
  citations.read("[see");
  citations.read(" 2]");
  citations.read(" [" + " ".repeat(60));
  citations.read("1]");
  assert.deepEqual(citations.cited, []);
});

/** Answers in chunks that cut its markers apart. */
class Citing extends Assistant {
  static chunks = ["Cardamom [", "2] is the secret [1, ", "2][1]", " and [9] is not a source."];
  override async *answer() {
    for (const chunk of Citing.chunks) yield await Promise.resolve(chunk);
  }
}

async function citingChat(api: Awaited<ReturnType<typeof testApi>>): Promise<string> {
  const { document: first } = await api.upload("first.md", "# First\n\nCardamom.\n");
  const { document: second } = await api.upload("second.md", "# Second\n\nDecember.\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "cited",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Citing",
    params: {},
    documents: [first, second],
  })).json();
  await (await api.call("POST", `/chats/${chat.id}/prepare`)).body?.cancel();
  return chat.id;
}

Deno.test("a streamed answer's lines carry the sources cited so far, markers cut between chunks included", async () => {
  await using api = await testApi({ assistants: [new Citing()] });
  const chatId = await citingChat(api);
  const response = await api.call("POST", `/chats/${chatId}/answer`, {
    prompt: "What is the secret?",
    stream: true,
  });
  assert.equal(response.status, 200);
  const lines = (await response.text()).trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.content), Citing.chunks);
  assert.equal(lines[0].sources.length, 2);
  assert.deepEqual(lines.map((line) => line.citations), [[], [2], [2, 1], [2, 1]]);
});

Deno.test("the citations of an answer are stored with it and returned by every route that reads it", async () => {
  await using api = await testApi({ assistants: [new Citing()] });
  const chatId = await citingChat(api);
  const streamed = await api.call("POST", `/chats/${chatId}/answer`, {
    prompt: "Streamed?",
    stream: true,
  });
  await streamed.text();
  const whole = await (await api.call("POST", `/chats/${chatId}/answer`, {
    prompt: "Whole?",
  })).json();
  assert.deepEqual(whole.citations, [2, 1]);

  const chat = await (await api.call("GET", `/chats/${chatId}`)).json();
  assert.deepEqual(
    chat.messages.map((m: { role: string; citations: number[] }) => [m.role, m.citations]),
    [["system", []], ["user", []], ["assistant", [2, 1]], ["user", []], ["assistant", [2, 1]]],
  );
  // The list is written by the database as one JSON text: the same messages.
  const [listed] = await (await api.call("GET", "/chats")).json();
  assert.deepEqual(listed.messages, chat.messages);
  // The 0.2.1 fields are there as before, the citations last.
  assert.deepEqual(Object.keys(chat.messages[2]), [
    "id",
    "content",
    "role",
    "sources",
    "timestamp",
    "citations",
  ]);
});

Deno.test("Citations finds the markers among brackets that close nothing or hold other things", () => {
  const citations = new Citations(2);
  citations.read("[ ".repeat(1000) + "[1] [[2]] [a [2] ]");
  assert.deepEqual(citations.cited, [1, 2]);
});
