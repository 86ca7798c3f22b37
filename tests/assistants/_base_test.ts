import assert from "node:assert/strict";
import { ModelAssistant, type ModelRequest } from "../../components/assistants/_base.ts";
import { promptParts } from "../../components/assistants/_prompt.ts";
import { displayNameOf } from "../../components/core/component.ts";
import type { SvcError } from "../../components/core/errors.ts";
import type { Requirement } from "../../components/core/requirements.ts";
import { chatParams, configured, SOURCES } from "./_providers.ts";

/** A model assistant whose provider answers with the texts it is given, and records the request. */
class Echo extends ModelAssistant {
  static override provider = "Echo";
  static override modelEnv = "SVC_ECHO_MODEL";
  static override defaultModel = "echo-1";
  static requests: ModelRequest[] = [];

  static override get requirements(): readonly Requirement[] {
    return [this.envRequirement("ECHO_API_KEY")];
  }

  protected override async *stream(request: ModelRequest): AsyncGenerator<string> {
    Echo.requests.push(request);
    yield "Echo: ";
    yield request.prompt.user.split("\n").at(-1)!;
  }
}

Deno.test("ModelAssistant asks its provider with the prompt, the model and the token limit", async () => {
  const echo = configured(Echo, { SVC_ECHO_MODEL: "echo-2" });
  const controller = new AbortController();
  const texts = await Array.fromAsync(
    new echo().answer("What grew?", SOURCES, chatParams(controller.signal, { max_new_tokens: 7 })),
  );
  assert.deepEqual(texts, ["Echo: ", "Question: What grew?"]);
  const request = Echo.requests.at(-1)!;
  assert.equal(request.model, "echo-2");
  assert.equal(request.maxNewTokens, 7);
  assert.deepEqual(request.prompt, await promptParts("What grew?", SOURCES));
  assert.equal(request.signal.aborted, true, "the call is over once the answer is");
});

Deno.test("ModelAssistant loads what it needs before its time limit starts", async () => {
  class SlowToLoad extends Echo {
    #loaded = false;

    protected override async prepare(): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, 300));
      this.#loaded = true;
    }

    protected override stream(request: ModelRequest): AsyncGenerator<string> {
      if (!this.#loaded) throw new Error("called before it was loaded");
      return super.stream(request);
    }
  }
  const slow = configured(SlowToLoad, { SVC_ASSISTANT_TIMEOUT: "0.2" });
  const texts = await Array.fromAsync(new slow().answer("What grew?", SOURCES, chatParams()));
  assert.deepEqual(texts, ["Echo: ", "Question: What grew?"]);
});

Deno.test("ModelAssistant takes max_new_tokens, 256 by default", async () => {
  const schema = Echo.params.max_new_tokens!;
  assert.equal(schema.parse(undefined), 256);
  assert.equal(schema.safeParse(0).success, false);
  assert.equal(schema.safeParse(1.5).success, false);
  await Array.fromAsync(new (configured(Echo, {}))().answer("?", [], chatParams()));
  assert.equal(Echo.requests.at(-1)!.maxNewTokens, 256);
});

Deno.test("ModelAssistant's display name is its provider and model: pinned, else from the environment, else the default", () => {
  assert.equal(displayNameOf(configured(Echo, {})), "Echo/echo-1");
  assert.equal(displayNameOf(configured(Echo, { SVC_ECHO_MODEL: "echo-2" })), "Echo/echo-2");
  class Pinned extends Echo {
    static override model = "echo-3";
  }
  assert.equal(displayNameOf(configured(Pinned, { SVC_ECHO_MODEL: "echo-2" })), "Echo/echo-3");
  assert.equal(new Pinned().displayName, "Echo/echo-3");
  class Modelless extends Echo {
    static override defaultModel = "";
  }
  assert.equal(displayNameOf(configured(Modelless, {})), "Echo");
});

Deno.test("ModelAssistant reads SVC_ASSISTANT_TIMEOUT in seconds, 60 by default", () => {
  assert.equal(configured(Echo, {}).timeout(), 60_000);
  assert.equal(configured(Echo, { SVC_ASSISTANT_TIMEOUT: "0.5" }).timeout(), 500);
  for (const value of ["soon", "0", "-3"]) {
    assert.throws(
      () => configured(Echo, { SVC_ASSISTANT_TIMEOUT: value }).timeout(),
      (error: SvcError) =>
        error.message ===
          `SVC_ASSISTANT_TIMEOUT must be a positive number of seconds, not "${value}"`,
    );
  }
});

Deno.test("ModelAssistant's env requirements read the configuration the class reads", async () => {
  assert.equal(await configured(Echo, {}).isAvailable(), false);
  assert.equal(await configured(Echo, { ECHO_API_KEY: "k" }).isAvailable(), true);
  assert.deepEqual(Echo.requirements.map(({ kind, name }) => [kind, name]), [[
    "env",
    "ECHO_API_KEY",
  ]]);
});

Deno.test("ModelAssistant.env() reads the environment, blank counting as unset", () => {
  // Names of this test's own, so that no other test reads them meanwhile.
  const set = "SVC_TEST_BASE_ENV_SET_4F1C";
  const blank = "SVC_TEST_BASE_ENV_BLANK_4F1C";
  Deno.env.set(set, " value ");
  Deno.env.set(blank, "  ");
  try {
    assert.equal(ModelAssistant.env(set), "value");
    assert.equal(ModelAssistant.env(blank), undefined);
    assert.equal(ModelAssistant.env("SVC_TEST_BASE_ENV_UNSET_4F1C"), undefined);
  } finally {
    Deno.env.delete(set);
    Deno.env.delete(blank);
  }
});
