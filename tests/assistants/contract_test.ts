/**
 * The contract every model assistant keeps, run against a local server that
 * speaks its provider's wire format (see `_providers.ts`).
 */
import assert from "node:assert/strict";
import { ModelAssistant } from "../../components/assistants/_base.ts";
import * as assistants from "../../components/assistants/mod.ts";
import { SvcError } from "../../components/core/errors.ts";
import { closedUrl, FakeServer, type Reply, SilentServer, within } from "./_fake_server.ts";
import {
  chatParams,
  configured,
  FAKES,
  type ModelAssistantClass,
  type ProviderFake,
  SOURCES,
} from "./_providers.ts";

const MODEL_ASSISTANTS = Object.entries(assistants).filter(([, value]) =>
  typeof value === "function" && value.prototype instanceof ModelAssistant
) as [string, ModelAssistantClass][];

Deno.test("every registered model assistant has a fake server in the contract suite", () => {
  assert.ok(MODEL_ASSISTANTS.length >= 3);
  for (const [name] of MODEL_ASSISTANTS) {
    assert.ok(FAKES[name], `FAKES in tests/assistants/_providers.ts has an entry for ${name}`);
  }
});

/** Answers through `assistant` configured for `server`; collects the texts and the error. */
async function collect(
  assistant: ModelAssistantClass,
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

function contract(name: string, base: ModelAssistantClass, fake: ProviderFake): void {
  const { provider } = base;
  const setup = (replies: Reply[], vars: Record<string, string> = {}) => {
    const server = new FakeServer(replies);
    const assistant = configured(base, {
      ...fake.env(server.url),
      SVC_ASSISTANT_TIMEOUT: "0.25",
      ...vars,
    });
    return { server, assistant };
  };

  Deno.test(`${name} streams the provider's texts chunk by chunk, in order`, async () => {
    const texts = ["Revenue", " grew by", " 42 %", " [1]."];
    const { server, assistant } = setup([(s) => fake.answer(s, texts, { delay: 40 })]);
    await using _ = server;
    const iterator = new assistant().answer("What grew?", SOURCES, chatParams())[
      Symbol.asyncIterator
    ]();
    const first = await iterator.next();
    assert.deepEqual(first, { value: "Revenue", done: false });
    const feed = server.feeds[0]!;
    assert.ok(feed.sent < feed.total, `the first text came after ${feed.sent}/${feed.total}`);
    const rest: string[] = [];
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      rest.push(step.value);
    }
    assert.deepEqual(rest, texts.slice(1));
    assert.equal(server.requests.length, 1);
  });

  Deno.test(`${name} asks for the model, the token limit and a stream, with the sources`, async () => {
    const { server, assistant } = setup([(s) => fake.answer(s, ["Yes."])]);
    await using _ = server;
    const { texts } = await collect(assistant, chatParams(undefined, { max_new_tokens: 99 }));
    assert.deepEqual(texts, ["Yes."]);
    const request = server.last;
    assert.equal(request.method, "POST");
    assert.equal(request.path, fake.path);
    const asked = fake.asked(request);
    assert.equal(asked.model, assistant.modelName());
    assert.equal(assistant.displayName, `${provider}/${asked.model}`);
    assert.equal(asked.maxTokens, 99);
    assert.equal(asked.stream, true);
    assert.match(asked.text, /\[1\] report\.pdf, pages 1-3:\nRevenue grew by 42 %\./);
    assert.match(asked.text, /\[2\] notes\.md:\nCosts stayed flat\./);
    assert.match(asked.text, /Question: What grew\?/);
    assert.match(asked.text, /cite/i);
  });

  Deno.test(`${name} asks for 256 new tokens by default`, async () => {
    assert.equal(base.params.max_new_tokens?.parse(undefined), 256);
    const { server, assistant } = setup([(s) => fake.answer(s, ["Yes."])]);
    await using _ = server;
    await collect(assistant);
    assert.equal(fake.asked(server.last).maxTokens, 256);
  });

  Deno.test(`${name} passes on a provider's error as a 502 with its status and message`, async () => {
    const { server, assistant } = setup([() => fake.error(400, "The model does not exist")]);
    await using _ = server;
    const { texts, error } = await collect(assistant);
    assert.deepEqual(texts, []);
    assert.equal(error?.status, 502);
    assert.equal(error?.message, `${provider} answered 400: The model does not exist`);
    assert.equal(server.requests.length, 1, "a 400 is not retried");
  });

  Deno.test(`${name} tries again after a 429, waiting as long as it asks`, async () => {
    const { server, assistant } = setup([
      () => fake.error(429, "Rate limit reached", { "retry-after": "0.1" }),
      (s) => fake.answer(s, ["Later", " answer."]),
    ]);
    await using _ = server;
    const started = performance.now();
    const { texts, error } = await collect(assistant);
    assert.equal(error, undefined);
    assert.deepEqual(texts, ["Later", " answer."]);
    assert.equal(server.requests.length, 2);
    assert.ok(performance.now() - started >= 95, "it waited the 0.1 s of Retry-After");
  });

  Deno.test(`${name} gives up after three 500s and names the cause`, async () => {
    const { server, assistant } = setup([() => fake.error(500, "The server had an error")]);
    await using _ = server;
    const { error } = await collect(assistant);
    assert.equal(error?.status, 502);
    assert.equal(
      error?.message,
      `${provider} answered 500: The server had an error (tried 3 times)`,
    );
    assert.equal(server.requests.length, 3);
  });

  Deno.test(`${name} times out with a 504 when no text comes`, async () => {
    const { server, assistant } = setup([(s) => fake.answer(s, [], { hold: true })], {
      SVC_ASSISTANT_TIMEOUT: "0.2",
    });
    await using _ = server;
    const started = performance.now();
    const { error } = await collect(assistant);
    assert.equal(error?.status, 504);
    assert.equal(error?.message, `${provider} did not answer within 0.2 s`);
    assert.ok(performance.now() - started < 1000);
    await within(server.feeds[0]!.hungUp, 500, "hanging up on the provider");
  });

  Deno.test(`${name} times out with a 504 when the provider does not even respond`, async () => {
    await using server = new SilentServer();
    const assistant = configured(base, { ...fake.env(server.url), SVC_ASSISTANT_TIMEOUT: "0.2" });
    const { error } = await collect(assistant);
    assert.equal(error?.status, 504);
    assert.equal(error?.message, `${provider} did not answer within 0.2 s`);
    assert.match(server.received, new RegExp(`^POST ${fake.path}[ ?]`));
    await within(server.hungUp, 500, "hanging up on the provider");
  });

  Deno.test(`${name} times out with a 504 when the stream stalls`, async () => {
    const { server, assistant } = setup([(s) => fake.answer(s, ["Half"], { hold: true })], {
      SVC_ASSISTANT_TIMEOUT: "0.2",
    });
    await using _ = server;
    const { texts, error } = await collect(assistant);
    assert.deepEqual(texts, ["Half"]);
    assert.equal(error?.status, 504);
    assert.equal(error?.message, `${provider} stopped answering for 0.2 s`);
    await within(server.feeds[0]!.hungUp, 500, "hanging up on the provider");
  });

  Deno.test(`${name} stops at once and hangs up when the signal aborts`, async () => {
    const { server, assistant } = setup([(s) => fake.answer(s, ["One", " two"], { hold: true })], {
      SVC_ASSISTANT_TIMEOUT: "10",
    });
    await using _ = server;
    const controller = new AbortController();
    const iterator = new assistant().answer("What grew?", SOURCES, chatParams(controller.signal))[
      Symbol.asyncIterator
    ]();
    assert.deepEqual(await iterator.next(), { value: "One", done: false });
    assert.deepEqual(await iterator.next(), { value: " two", done: false });
    const pending = iterator.next();
    controller.abort();
    assert.deepEqual(await within(pending, 100, "ending after the abort"), {
      value: undefined,
      done: true,
    });
    await within(server.feeds[0]!.hungUp, 500, "hanging up on the provider");
  });

  Deno.test(`${name} stops at once when the signal aborts before the provider responds`, async () => {
    await using server = new SilentServer();
    const assistant = configured(base, { ...fake.env(server.url), SVC_ASSISTANT_TIMEOUT: "10" });
    const controller = new AbortController();
    const answer = collect(assistant, chatParams(controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    assert.deepEqual(await within(answer, 100, "ending after the abort"), { texts: [] });
    await within(server.hungUp, 500, "hanging up on the provider");
  });

  Deno.test(`${name} stops at once when the signal aborts while it waits to retry`, async () => {
    const { server, assistant } = setup([
      () => fake.error(503, "Overloaded", { "retry-after": "5" }),
    ], { SVC_ASSISTANT_TIMEOUT: "10" });
    await using _ = server;
    const controller = new AbortController();
    const answer = collect(assistant, chatParams(controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    assert.deepEqual(await within(answer, 100, "ending after the abort"), { texts: [] });
    assert.equal(server.requests.length, 1);
  });

  Deno.test(`${name} reports stream data that is not JSON as a 502`, async () => {
    const { server, assistant } = setup([(s) => fake.badJson(s)]);
    await using _ = server;
    const { texts, error } = await collect(assistant);
    assert.deepEqual(texts, ["ok"]);
    assert.equal(error?.status, 502);
    assert.match(error?.message ?? "", new RegExp(`^${provider} sent malformed stream data: `));
  });

  Deno.test(`${name} reports stream data of an unknown shape as a 502`, async () => {
    const { server, assistant } = setup([(s) => fake.unexpected(s)]);
    await using _ = server;
    const { texts, error } = await collect(assistant);
    assert.deepEqual(texts, ["ok"]);
    assert.equal(error?.status, 502);
    assert.match(error?.message ?? "", new RegExp(`^${provider} sent malformed stream data: `));
  });

  Deno.test(`${name} says which server it cannot reach`, async () => {
    const url = await closedUrl();
    const assistant = configured(base, { ...fake.env(url), SVC_ASSISTANT_TIMEOUT: "2" });
    const { error } = await collect(assistant);
    assert.equal(error?.status, 502);
    assert.ok(
      error?.message.startsWith(`Cannot reach ${provider} at "${url}`),
      error?.message,
    );
  });
}

for (const [name, assistant] of MODEL_ASSISTANTS) {
  const fake = FAKES[name];
  if (fake) contract(name, assistant, fake);
}
