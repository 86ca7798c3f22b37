import assert from "node:assert/strict";
import {
  chatName,
  matchesSearch,
  UNNAMED_CHAT,
  type ViewMessage,
  withAnswers,
} from "../../ui/conversation.ts";

function message(
  role: ViewMessage["role"],
  key: string,
  state?: ViewMessage["state"],
): ViewMessage {
  return { id: key, key, role, content: key, sources: [], citations: [], timestamp: "", state };
}

Deno.test("withAnswers() puts a failed answer after a question that none follows, so no two questions stand in a row", () => {
  const shown = withAnswers([
    message("system", "welcome"),
    message("user", "q1"),
    message("user", "q2"),
    message("assistant", "a2"),
    message("user", "q3"),
  ], false);
  assert.deepEqual(shown.map((m) => [m.role, m.state]), [
    ["system", undefined],
    ["user", undefined],
    ["assistant", "failed"],
    ["user", undefined],
    ["assistant", undefined],
    ["user", undefined],
    ["assistant", "failed"],
  ]);
  assert.equal(shown[2]!.error, "No answer was kept for this question");
  assert.equal(new Set(shown.map((m) => m.key)).size, shown.length, "keys stay unique");
});

Deno.test("withAnswers() leaves the last question alone while its answer is asked for", () => {
  const messages = [message("user", "q1"), message("assistant", "a1"), message("user", "q2")];
  assert.deepEqual(withAnswers(messages, true).map((m) => m.key), ["q1", "a1", "q2"]);
  assert.equal(withAnswers(messages, false).length, 4);
});

Deno.test("chatName() names a chat without a name until its first question does", () => {
  assert.equal(chatName({ metadata: { name: "" } }), UNNAMED_CHAT);
  assert.equal(chatName({ metadata: { name: "  " } }), UNNAMED_CHAT);
  assert.equal(chatName({ metadata: { name: "Budget" } }), "Budget");
});

Deno.test("matchesSearch() finds every word in the chat's or its documents' names, whatever the case", () => {
  const chat = {
    metadata: { name: "Budget 2027", documents: [{ id: "d", name: "Travel-plan.pdf" }] },
  };
  assert.equal(matchesSearch(chat, ""), true);
  assert.equal(matchesSearch(chat, "budget"), true);
  assert.equal(matchesSearch(chat, "TRAVEL 2027"), true);
  assert.equal(matchesSearch(chat, "travel holiday"), false);
  assert.equal(matchesSearch({ metadata: { name: "", documents: [] } }, "new chat"), true);
});
