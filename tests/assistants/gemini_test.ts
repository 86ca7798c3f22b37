import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { Gemini } from "../../components/assistants/gemini.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  collect,
  configured,
  geminiEvents,
  geminiFake,
  requestOf,
  sse,
  streaming,
} from "./_providers.ts";

/** A GenerateContentResponse of one candidate. */
function candidate(candidate: Record<string, unknown>): string {
  return sse({ candidates: [{ index: 0, ...candidate }], modelVersion: "gemini-test" });
}

Deno.test("Gemini posts to streamGenerateContent with alt=sse, the key in a header and the token limit", async () => {
  const { path, search, headers, body } = await requestOf(Gemini, geminiFake);
  assert.equal(path, "/v1beta/models/gemini-test:streamGenerateContent");
  assert.equal(search, "?alt=sse", "the key is not in the URL");
  assert.equal(headers.get("x-goog-api-key"), "AIza-test");
  assert.equal(headers.get("content-type"), "application/json");
  const user = (body as { contents: { parts: { text: string }[] }[] }).contents[0]!.parts[0]!.text;
  assert.deepEqual(body, {
    systemInstruction: { parts: [{ text: INSTRUCTION }] },
    contents: [{ role: "user", parts: [{ text: user }] }],
    generationConfig: { temperature: 0, maxOutputTokens: 64 },
  });
});

Deno.test("Gemini says the answer was blocked when the prompt is", async () => {
  await using server = streaming([
    sse({
      promptFeedback: {
        blockReason: "SAFETY",
        safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH" }],
      },
      usageMetadata: { promptTokenCount: 20, totalTokenCount: 20 },
      modelVersion: "gemini-test",
    }),
  ]);
  const { texts, error } = await collect(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, []);
  assert.equal(error?.status, 502);
  assert.equal(
    error?.message,
    'Gemini blocked the answer because of the question or its sources (block reason "SAFETY")',
  );
  assert.equal(server.requests.length, 1, "a block is not retried");
});

Deno.test("Gemini says the answer was blocked when it stops for safety", async () => {
  await using server = streaming([
    ...geminiEvents(["Revenue"], { unfinished: true }),
    candidate({
      finishReason: "SAFETY",
      safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "MEDIUM" }],
    }),
  ]);
  const { texts, error } = await collect(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, ["Revenue"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, 'Gemini blocked the answer (finish reason "SAFETY")');
});

Deno.test("Gemini reports another early stop with its finish reason", async () => {
  await using server = streaming(geminiEvents(["Revenue"], { finishReason: "OTHER" }));
  const { texts, error } = await collect(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, ["Revenue"]);
  assert.equal(error?.message, 'Gemini stopped the answer early (finish reason "OTHER")');
});

Deno.test("Gemini ends at MAX_TOKENS, and says why when its thinking used them all", async () => {
  await using cut = streaming(geminiEvents(["Revenue", " grew"], { finishReason: "MAX_TOKENS" }));
  const whole = await collect(configured(Gemini, geminiFake.env(cut.url)));
  assert.deepEqual(whole, { texts: ["Revenue", " grew"] });

  await using thinking = streaming(geminiEvents([], { finishReason: "MAX_TOKENS" }));
  const { texts, error } = await collect(configured(Gemini, geminiFake.env(thinking.url)));
  assert.deepEqual(texts, []);
  assert.equal(error?.status, 502);
  assert.equal(
    error?.message,
    "Gemini reached max_new_tokens (256) before it wrote any text: a thinking model counts " +
      "its thinking toward them, so raise max_new_tokens",
  );
});

Deno.test("Gemini skips thought parts, parts without text and chunks of usage only", async () => {
  await using server = streaming([
    candidate({ content: { role: "model", parts: [{ text: "Let me see", thought: true }] } }),
    candidate({
      content: { role: "model", parts: [{ text: "Revenue" }, { functionCall: { name: "f" } }] },
    }),
    candidate({ content: { role: "model", parts: [{ text: " grew" }, { text: " [1]." }] } }),
    candidate({ content: { role: "model", parts: [] }, finishReason: "STOP" }),
    sse({ usageMetadata: { promptTokenCount: 20, totalTokenCount: 23 } }),
  ]);
  const { texts, error } = await collect(configured(Gemini, geminiFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
});

Deno.test("Gemini takes GEMINI_API_KEY when GOOGLE_API_KEY is unset, and GOOGLE_API_KEY first", async () => {
  await using server = new FakeServer([(s) => geminiFake.answer(s, ["Yes."])]);
  const { GOOGLE_API_KEY: _, ...env } = geminiFake.env(server.url);
  const other = configured(Gemini, { ...env, GEMINI_API_KEY: "gemini-key" });
  assert.equal(await other.isAvailable(), true);
  assert.deepEqual((await collect(other)).texts, ["Yes."]);
  assert.equal(server.last.headers.get("x-goog-api-key"), "gemini-key");

  const both = configured(Gemini, { ...env, GEMINI_API_KEY: "gemini-key", GOOGLE_API_KEY: "g" });
  await collect(both);
  assert.equal(server.last.headers.get("x-goog-api-key"), "g");
});
