import assert from "node:assert/strict";
import { INSTRUCTION } from "../../components/assistants/_prompt.ts";
import { Gemini } from "../../components/assistants/gemini.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { SvcError } from "../../components/core/errors.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  chatParams,
  configured,
  geminiEvents,
  geminiFake,
  SOURCES,
  sse,
  SSE_HEADERS,
} from "./_providers.ts";

async function answer(
  assistant: typeof Gemini,
  params = chatParams(),
): Promise<{ texts: string[]; error?: SvcError }> {
  const texts: string[] = [];
  try {
    for await (const text of new assistant().answer("What grew?", SOURCES, params)) {
      texts.push(text);
    }
    return { texts };
  } catch (error) {
    assert.ok(error instanceof SvcError, `an SvcError, not ${error}`);
    return { texts, error };
  }
}

/** A server that streams `events`, then closes. */
function streaming(events: string[]): FakeServer {
  return new FakeServer([(s) => s.feed(events, { headers: SSE_HEADERS })]);
}

/** A GenerateContentResponse of one candidate. */
function candidate(candidate: Record<string, unknown>): string {
  return sse({ candidates: [{ index: 0, ...candidate }], modelVersion: "gemini-test" });
}

Deno.test("Gemini posts to streamGenerateContent with alt=sse, the key in a header and the token limit", async () => {
  await using server = new FakeServer([(s) => geminiFake.answer(s, ["Revenue", " grew [1]."])]);
  const assistant = configured(Gemini, geminiFake.env(server.url));
  const { texts } = await answer(assistant, chatParams(undefined, { max_new_tokens: 64 }));
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
  const { path, search, headers, body } = server.last;
  assert.equal(path, "/v1beta/models/gemini-test:streamGenerateContent");
  assert.equal(search, "?alt=sse", "the key is not in the URL");
  assert.equal(headers.get("x-goog-api-key"), "AIza-test");
  assert.equal(headers.get("content-type"), "application/json");
  const user = (body as { contents: { parts: { text: string }[] }[] }).contents[0]!.parts[0]!.text;
  assert.match(user, /^Sources:\n\n\[1\] report\.pdf, pages 1-3:\n/);
  assert.match(user, /\n\nQuestion: What grew\?$/);
  assert.deepEqual(body, {
    systemInstruction: { parts: [{ text: INSTRUCTION }] },
    contents: [{ role: "user", parts: [{ text: user }] }],
    generationConfig: { temperature: 0, maxOutputTokens: 64 },
  });
});

Deno.test("Gemini passes on Google's own message for a wrong key", async () => {
  const message = "API key not valid. Please pass a valid API key.";
  await using server = new FakeServer([() => geminiFake.error(400, message)]);
  const { error } = await answer(configured(Gemini, geminiFake.env(server.url)));
  assert.equal(error?.status, 502);
  assert.equal(error?.message, `Gemini answered 400: ${message}`);
  assert.equal(server.requests.length, 1);
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
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(server.url)));
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
    ...geminiEvents(["Revenue"], { hold: true }),
    candidate({
      finishReason: "SAFETY",
      safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "MEDIUM" }],
    }),
  ]);
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, ["Revenue"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, 'Gemini blocked the answer (finish reason "SAFETY")');
});

Deno.test("Gemini reports another early stop with its finish reason", async () => {
  await using server = streaming(geminiEvents(["Revenue"], { finishReason: "OTHER" }));
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, ["Revenue"]);
  assert.equal(error?.message, 'Gemini stopped the answer early (finish reason "OTHER")');
});

Deno.test("Gemini ends at MAX_TOKENS, and says why when its thinking used them all", async () => {
  await using cut = streaming(geminiEvents(["Revenue", " grew"], { finishReason: "MAX_TOKENS" }));
  const whole = await answer(configured(Gemini, geminiFake.env(cut.url)));
  assert.deepEqual(whole, { texts: ["Revenue", " grew"] });

  await using thinking = streaming(geminiEvents([], { finishReason: "MAX_TOKENS" }));
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(thinking.url)));
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
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(server.url)));
  assert.equal(error, undefined);
  assert.deepEqual(texts, ["Revenue", " grew [1]."]);
});

Deno.test("Gemini reports an error inside the stream", async () => {
  await using server = streaming([
    ...geminiEvents(["ok"], { hold: true }),
    sse({ error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL" } }),
  ]);
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, ["ok"]);
  assert.equal(error?.status, 502);
  assert.equal(error?.message, "Gemini answered with an error: An internal error has occurred.");
});

Deno.test("Gemini reports a stream that ends without a finish reason", async () => {
  await using server = streaming(geminiEvents(["Half"], { hold: true }));
  const { texts, error } = await answer(configured(Gemini, geminiFake.env(server.url)));
  assert.deepEqual(texts, ["Half"]);
  assert.equal(
    error?.message,
    "Gemini sent malformed stream data: the stream ended before the answer was finished",
  );
});

Deno.test("Gemini takes GOOGLE_API_KEY, else GEMINI_API_KEY, and says when both are unset", async () => {
  await using server = new FakeServer([(s) => geminiFake.answer(s, ["Yes."])]);
  const { GOOGLE_API_KEY: _, ...env } = geminiFake.env(server.url);
  const other = configured(Gemini, { ...env, GEMINI_API_KEY: "gemini-key" });
  assert.equal(await other.isAvailable(), true);
  assert.deepEqual((await answer(other)).texts, ["Yes."]);
  assert.equal(server.last.headers.get("x-goog-api-key"), "gemini-key");

  const both = configured(Gemini, { ...env, GEMINI_API_KEY: "gemini-key", GOOGLE_API_KEY: "g" });
  await answer(both);
  assert.equal(server.last.headers.get("x-goog-api-key"), "g");

  const without = configured(Gemini, env);
  assert.equal(await without.isAvailable(), false);
  assert.deepEqual(
    without.requirements.map(({ kind, name }) => `${kind} ${name}`),
    ["env GOOGLE_API_KEY or GEMINI_API_KEY"],
  );
  const { error } = await answer(without);
  assert.equal(
    error?.message,
    'Gemini needs the environment variable "GOOGLE_API_KEY" (or "GEMINI_API_KEY"), which is unset',
  );
  assert.equal(server.requests.length, 2);
});

Deno.test("Gemini's display name names the model of SVC_GEMINI_MODEL, else the default", () => {
  assert.equal(displayNameOf(configured(Gemini, {})), "Gemini/gemini-2.5-flash");
  assert.equal(
    displayNameOf(configured(Gemini, { SVC_GEMINI_MODEL: "gemini-2.5-pro" })),
    "Gemini/gemini-2.5-pro",
  );
});
