/**
 * The contract every model assistant keeps, run against a local server that
 * speaks its provider's wire format (see `_providers.ts`).
 */
import assert from "node:assert/strict";
import { ModelAssistant } from "../../components/assistants/_base.ts";
import { STANDALONE_TOKENS } from "../../components/assistants/_base.ts";
import { INSTRUCTION, STANDALONE_INSTRUCTION } from "../../components/assistants/_prompt.ts";
import type { SvcError } from "../../components/core/errors.ts";
import { Message } from "../../components/core/message.ts";
import * as assistants from "../../components/assistants/mod.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { closedUrl, FakeServer, type Reply, SilentServer, within } from "./_fake_server.ts";
import {
  chatParams,
  collect,
  configured,
  FAKES,
  firstTextPieces,
  type ModelAssistantClass,
  okThen,
  type ProviderFake,
  SECRETS,
  SOURCES,
  withSecrets,
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

/**
 * The assistant timeout, in seconds, of the tests not about it, and the deadline of what must
 * happen at once: only waiting for that timeout, or never doing it, takes as long.
 */
const PATIENCE = 10;

/**
 * The time limit of a standalone question, in seconds, in the tests of it: long enough for the
 * request to reach the server on a loaded machine, short against the 20 s of a trickle.
 */
const FOLLOW_UP_TIMEOUT = "0.5";

function contract(name: string, base: ModelAssistantClass, fake: ProviderFake): void {
  const { provider } = base;
  const setup = (replies: Reply[], vars: Record<string, string> = {}, assistantClass = base) => {
    const server = new FakeServer(replies);
    const assistant = configured(assistantClass, {
      ...fake.env(server.url),
      SVC_ASSISTANT_TIMEOUT: String(PATIENCE),
      ...vars,
    });
    return { server, assistant };
  };

  Deno.test(`${name} streams the provider's texts chunk by chunk, in order`, async () => {
    const texts = ["Revenue", " grew by", " 42 %", " [1]."];
    // The pieces after the first text's are held until it is here.
    const held = Promise.withResolvers<void>();
    const gate = { after: firstTextPieces(fake, texts), open: held.promise };
    const { server, assistant } = setup([(s) => fake.answer(s, texts, { gate })]);
    await using _ = server;
    const iterator = new assistant().answer("What grew?", SOURCES, chatParams())[
      Symbol.asyncIterator
    ]();
    // An assistant that waited for the whole stream would wait for ever: this guards the hang.
    const first = await within(iterator.next(), PATIENCE * 1000, "the first text");
    assert.deepEqual(first, { value: "Revenue", done: false });
    const feed = server.feeds[0]!;
    assert.ok(feed.sent < feed.total, `the first text came after ${feed.sent}/${feed.total}`);
    held.resolve();
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
    assert.equal(asked.temperature, 0);
    assert.equal(asked.stream, true);
    assert.equal(asked.system, INSTRUCTION);
    const user = String(asked.user);
    assert.match(user, /^Sources:\n\n\[1\] report\.pdf, pages 1-3:\nRevenue grew by 42 %\./);
    assert.match(user, /\n\n\[2\] notes\.md:\nCosts stayed flat\./);
    assert.match(user, /\n\nQuestion: What grew\?$/);
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
    assert.ok(performance.now() - started >= 190, "it waited the 0.2 s");
    await within(server.feeds[0]!.hungUp, PATIENCE * 1000, "hanging up on the provider");
  });

  Deno.test(`${name} times out with a 504 when the provider does not even respond`, async () => {
    await using server = new SilentServer();
    const assistant = configured(base, { ...fake.env(server.url), SVC_ASSISTANT_TIMEOUT: "0.2" });
    const { error } = await collect(assistant);
    assert.equal(error?.status, 504);
    assert.equal(error?.message, `${provider} did not answer within 0.2 s`);
    assert.match(server.received, new RegExp(`^POST ${fake.path}[ ?]`));
    await within(server.hungUp, PATIENCE * 1000, "hanging up on the provider");
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
    await within(server.feeds[0]!.hungUp, PATIENCE * 1000, "hanging up on the provider");
  });

  Deno.test(`${name} stops at once and hangs up when the signal aborts`, async () => {
    const { server, assistant } = setup([(s) => fake.answer(s, ["One", " two"], { hold: true })], {
      SVC_ASSISTANT_TIMEOUT: String(PATIENCE),
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
    assert.deepEqual(await within(pending, PATIENCE * 1000, "ending after the abort"), {
      value: undefined,
      done: true,
    });
    await within(server.feeds[0]!.hungUp, PATIENCE * 1000, "hanging up on the provider");
  });

  Deno.test(`${name} stops at once when the signal aborts before the provider responds`, async () => {
    await using server = new SilentServer();
    const assistant = configured(base, {
      ...fake.env(server.url),
      SVC_ASSISTANT_TIMEOUT: String(PATIENCE),
    });
    const controller = new AbortController();
    const answer = collect(assistant, chatParams(controller.signal));
    await within(server.requested, PATIENCE * 1000, "the request reaching the provider");
    controller.abort();
    assert.deepEqual(await within(answer, PATIENCE * 1000, "ending after the abort"), {
      texts: [],
    });
    await within(server.hungUp, PATIENCE * 1000, "hanging up on the provider");
  });

  Deno.test(`${name} stops at once when the signal aborts while it waits to retry`, async () => {
    const overloaded = Promise.withResolvers<void>();
    const { server, assistant } = setup([
      () => {
        overloaded.resolve();
        return fake.error(503, "Overloaded", { "retry-after": "5" });
      },
    ], { SVC_ASSISTANT_TIMEOUT: String(PATIENCE) });
    await using _ = server;
    const controller = new AbortController();
    const answer = collect(assistant, chatParams(controller.signal));
    await within(overloaded.promise, PATIENCE * 1000, "the first request");
    controller.abort();
    assert.deepEqual(await within(answer, PATIENCE * 1000, "ending after the abort"), {
      texts: [],
    });
    assert.equal(server.requests.length, 1);
  });

  const badData = { "that is not JSON": fake.notJson, "of an unknown shape": fake.unknownShape };
  for (const [what, event] of Object.entries(badData)) {
    Deno.test(`${name} reports stream data ${what} as a 502`, async () => {
      const { server, assistant } = setup([(s) => okThen(s, fake, event)]);
      await using _ = server;
      const { texts, error } = await collect(assistant);
      assert.deepEqual(texts, ["ok"]);
      assert.equal(error?.status, 502);
      assert.match(error?.message ?? "", new RegExp(`^${provider} sent malformed stream data: `));
    });
  }

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

  Deno.test(`${name} names its server without the password and key of its URL`, async () => {
    const url = await closedUrl();
    const assistant = configured(base, {
      ...withSecrets(fake.env(url), url),
      SVC_ASSISTANT_TIMEOUT: "2",
    });
    const { error } = await collect(assistant);
    assert.equal(error?.status, 502);
    assert.match(error?.message ?? "", new RegExp(`^Cannot reach ${provider} at "http://127`));
    const shown = [
      error?.message,
      ...assistant.requirements.map(({ name }) => name),
    ].join("\n");
    for (const secret of [SECRETS.password, SECRETS.key, "ada:"]) {
      assert.ok(!shown.includes(secret), `${secret} shows in ${shown}`);
    }
  });

  Deno.test(`${name} passes on its provider's own error messages, as its server shapes them`, async () => {
    const { server, assistant } = setup(
      fake.errorSamples.map(({ status, message, body }) => () =>
        body === undefined ? fake.error(status, message) : Response.json(body, { status })
      ),
    );
    await using _ = server;
    for (const { status, message } of fake.errorSamples) {
      const { texts, error } = await collect(assistant);
      assert.deepEqual(texts, []);
      assert.equal(error?.status, 502);
      assert.equal(error?.message, `${provider} answered ${status}: ${message}`);
    }
    assert.equal(server.requests.length, fake.errorSamples.length, "none is retried");
  });

  Deno.test(`${name} reports an error inside the stream as a 502 after the text it gave`, async () => {
    const { server, assistant } = setup([
      (s) => okThen(s, fake, fake.errorEvent("An internal error has occurred")),
    ]);
    await using _ = server;
    const { texts, error } = await collect(assistant);
    assert.deepEqual(texts, ["ok"]);
    assert.equal(error?.status, 502);
    assert.equal(
      error?.message,
      `${provider} answered with an error: An internal error has occurred`,
    );
    assert.equal(server.requests.length, 1);
  });

  Deno.test(`${name} reports a stream that ends before the answer is finished`, async () => {
    const { server, assistant } = setup([(s) => fake.answer(s, ["Half"], { unfinished: true })]);
    await using _ = server;
    const { texts, error } = await collect(assistant);
    assert.deepEqual(texts, ["Half"]);
    assert.equal(error?.status, 502);
    assert.equal(error?.message, `${provider} sent malformed stream data: ${fake.unfinished}`);
  });

  Deno.test(`${name} ends the answer at its last event, without waiting for the stream to close`, async () => {
    const { server, assistant } = setup([
      (s) => fake.answer(s, ["Revenue", " grew."], { hold: true, unfinished: false }),
    ]);
    await using _ = server;
    assert.deepEqual(await collect(assistant), { texts: ["Revenue", " grew."] });
  });

  Deno.test(`${name} lists its requirements, and is available when they are met`, async () => {
    await using server = new FakeServer([() => fake.error(404, "Not found")]);
    const assistant = configured(base, fake.env(server.url));
    const { requirements } = assistant;
    assert.deepEqual(
      requirements.map(({ kind, name }) => `${kind} ${name}`),
      fake.requirements(server.url),
    );
    assert.equal(await assistant.isAvailable(), true);
    if (requirements.some(({ kind }) => kind === "server")) {
      const gone = configured(base, fake.env(await closedUrl()));
      assert.equal(await gone.isAvailable(), false, "its server does not answer");
    }
  });

  if (fake.needs.length > 0) {
    const names = fake.needs.map((need) => need.name).join(" or ");
    Deno.test(`${name} is unavailable without ${names}, and its answer says what is unset`, async () => {
      await using server = new FakeServer([(s) => fake.answer(s, ["Yes."])]);
      for (const { name: unset, message } of fake.needs) {
        const { [unset]: _, ...vars } = fake.env(server.url);
        const without = configured(base, vars);
        assert.equal(await without.isAvailable(), false, unset);
        const { texts, error } = await collect(without);
        assert.deepEqual(texts, []);
        assert.equal(error?.message, message);
      }
      assert.equal(server.requests.filter(({ method }) => method === "POST").length, 0);
    });
  }

  Deno.test(`${name}'s display name names the model of ${fake.modelEnv}, else the default`, () => {
    const byDefault = fake.defaultModel ? `${provider}/${fake.defaultModel}` : provider;
    assert.equal(displayNameOf(configured(base, {})), byDefault);
    const chosen = configured(base, { [fake.modelEnv]: "chosen-model" });
    assert.equal(displayNameOf(chosen), `${provider}/chosen-model`);
    assert.equal(new chosen().displayName, `${provider}/chosen-model`);
  });

  Deno.test(`${name} asks for the model a subclass pins, over ${fake.modelEnv}`, async () => {
    class Pinned extends base {
      static override model = "pinned-model";
    }
    assert.equal(Pinned.displayName, `${provider}/pinned-model`);
    const { server, assistant } = setup([(s) => fake.answer(s, ["Yes."])], {}, Pinned);
    await using _ = server;
    assert.equal(assistant.displayName, `${provider}/pinned-model`);
    assert.deepEqual(await collect(assistant), { texts: ["Yes."] });
    assert.equal(fake.asked(server.last).model, "pinned-model");
  });

  const conversation = [
    new Message("How do I freeze bread?", { role: "user" }),
    new Message("Wrap the loaf in foil [1].", { role: "assistant" }),
  ];
  const askStandalone = (assistant: ModelAssistantClass, signal?: AbortSignal) =>
    new assistant().standaloneQuestion(
      "And how do I thaw it?",
      chatParams(signal, { history: conversation }),
    );

  Deno.test(`${name} asks its model once, briefly, for a follow-up worded to stand alone`, async () => {
    const texts = ['Question: "How do I thaw', ' frozen bread?"'];
    const { server, assistant } = setup([(s) => fake.answer(s, texts)]);
    await using _ = server;
    assert.equal(await askStandalone(assistant), "How do I thaw frozen bread?");
    assert.equal(server.requests.length, 1);
    const asked = fake.asked(server.last);
    assert.equal(asked.model, assistant.modelName());
    assert.equal(asked.maxTokens, STANDALONE_TOKENS);
    assert.equal(asked.stream, true);
    assert.equal(asked.system, STANDALONE_INSTRUCTION);
    assert.equal(
      asked.user,
      "Conversation so far:\n\nUser: How do I freeze bread?\n\nAssistant: Wrap the loaf in foil " +
        "[1].\n\nFollow-up question: And how do I thaw it?",
    );
  });

  Deno.test(`${name} asks for a standalone question once, not again after a 500`, async () => {
    const { server, assistant } = setup([() => fake.error(500, "The server had an error")]);
    await using _ = server;
    await assert.rejects(askStandalone(assistant), (error: SvcError) => {
      assert.equal(error.status, 502);
      assert.equal(error.message, `${provider} answered 500: The server had an error`);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  Deno.test(`${name} gives up on a standalone question after SVC_FOLLOW_UP_TIMEOUT, and hangs up`, async () => {
    await using server = new SilentServer();
    const assistant = configured(base, {
      ...fake.env(server.url),
      SVC_ASSISTANT_TIMEOUT: String(PATIENCE),
      SVC_FOLLOW_UP_TIMEOUT: FOLLOW_UP_TIMEOUT,
    });
    await assert.rejects(askStandalone(assistant), (error: SvcError) => {
      assert.equal(error.status, 504);
      assert.equal(
        error.message,
        `${provider} did not word the follow-up question within ${FOLLOW_UP_TIMEOUT} s`,
      );
      return true;
    });
    assert.match(server.received, new RegExp(`^POST ${fake.path}[ ?]`));
    await within(server.hungUp, PATIENCE * 1000, "hanging up on the provider");
  });

  Deno.test(`${name} ends a standalone question that trickles on at SVC_FOLLOW_UP_TIMEOUT in all`, async () => {
    // A text every 5 ms for 20 s, never a gap that the assistant's own timeout would end.
    const texts = Array.from({ length: 4000 }, () => " and");
    const replied = Promise.withResolvers<void>();
    const { server, assistant } = setup([(s) => {
      replied.resolve();
      return fake.answer(s, texts);
    }], { SVC_FOLLOW_UP_TIMEOUT: FOLLOW_UP_TIMEOUT });
    await using _ = server;
    await assert.rejects(askStandalone(assistant), (error: SvcError) => {
      assert.equal(error.status, 504);
      assert.equal(
        error.message,
        `${provider} did not word the follow-up question within ${FOLLOW_UP_TIMEOUT} s`,
      );
      return true;
    });
    await within(replied.promise, PATIENCE * 1000, "the provider's reply");
    await within(server.feeds[0]!.hungUp, PATIENCE * 1000, "hanging up on the provider");
    assert.ok(server.feeds[0]!.sent < server.feeds[0]!.total);
  });
}

for (const [name, assistant] of MODEL_ASSISTANTS) {
  const fake = FAKES[name];
  if (fake) contract(name, assistant, fake);
}
