import assert from "node:assert/strict";
import { Message } from "../../components/core/message.ts";
import { FOLLOW_UP_TURNS, followUpText } from "../../components/source_storages/_follow_up.ts";

Deno.test("followUpText() searches a follow-up with the user's last questions, not the answers", () => {
  const history = [
    new Message("How can I help you with the documents?", { role: "system" }),
    new Message("How do I copy a command?", { role: "user" }),
    new Message("With \\NewCommandCopy [1].", { role: "assistant" }),
    new Message("And show it?", { role: "user" }),
    new Message("With \\ShowCommand [2].", { role: "assistant" }),
  ];
  assert.equal(FOLLOW_UP_TURNS, 2);
  assert.equal(
    followUpText("And how do I undo that?", history),
    "How do I copy a command?\nAnd show it?\nAnd how do I undo that?",
  );
  assert.equal(
    followUpText("Why?", [...history, new Message("Third?", { role: "user" })]),
    "And show it?\nThird?\nWhy?",
  );
});

Deno.test("followUpText() leaves a first question as it is", () => {
  assert.equal(followUpText("What is svc?", undefined), undefined);
  assert.equal(
    followUpText("What is svc?", [new Message("Welcome", { role: "system" })]),
    undefined,
  );
});
