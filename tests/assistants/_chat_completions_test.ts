import assert from "node:assert/strict";
import { chatCompletionDelta } from "../../components/assistants/_chat_completions.ts";
import { ProviderError } from "../../components/assistants/_errors.ts";

const choice = (delta: unknown, finish_reason: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason }],
});

Deno.test("chatCompletionDelta() gives the first choice's text, and whether it finishes", () => {
  assert.deepEqual(chatCompletionDelta(choice({ content: "Hi" }), "OpenAI"), {
    text: "Hi",
    done: false,
  });
  assert.deepEqual(chatCompletionDelta(choice({ role: "assistant" }), "OpenAI"), {
    text: "",
    done: false,
  });
  assert.deepEqual(chatCompletionDelta(choice({}, "stop"), "OpenAI"), { text: "", done: true });
  assert.deepEqual(chatCompletionDelta({ choices: [], usage: { total_tokens: 3 } }, "OpenAI"), {
    text: "",
    done: false,
  });
});

Deno.test("chatCompletionDelta() reports a chunk without choices or with content that is not text", () => {
  assert.throws(
    () => chatCompletionDelta({ object: "surprise" }, "AI21"),
    (error: ProviderError) =>
      error instanceof ProviderError &&
      error.message === 'AI21 sent malformed stream data: a chunk has no "choices": ' +
          '{"object":"surprise"}',
  );
  assert.throws(
    () => chatCompletionDelta(choice({ content: 42 }), "AI21"),
    /^ProviderError: AI21 sent malformed stream data: a chunk's content is not text: /,
  );
});
