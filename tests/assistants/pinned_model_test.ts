/**
 * The README's recipe for pinning a model: a user's own module with a
 * few-line subclass, named in svc.toml as `"./my_components.ts#Gpt41"`.
 */
import assert from "node:assert/strict";
import { OpenAI } from "../../components/assistants/mod.ts";
import { displayNameOf } from "../../components/core/component.ts";
import { loadClass } from "../../components/registry.ts";
import { tmpDir, writeFile } from "../test_utils.ts";
import { FakeServer } from "./_fake_server.ts";
import {
  chatParams,
  configured,
  type ModelAssistantClass,
  openaiFake,
  SOURCES,
} from "./_providers.ts";

/** `my_components.ts` as the README shows it. */
const MY_COMPONENTS = `import { OpenAI } from "@svc/svc/assistants";

export class Gpt41 extends OpenAI {
  static override model = "gpt-4.1";
}
`;

Deno.test("a user's subclass in ./my_components.ts pins its model, loaded as svc.toml names it", async () => {
  await using dir = await tmpDir();
  await writeFile(dir.path, "my_components.ts", MY_COMPONENTS);
  const Gpt41 = await loadClass("./my_components.ts#Gpt41", { base: dir.path }) as
    & ModelAssistantClass
    & typeof OpenAI;
  assert.ok(Gpt41.prototype instanceof OpenAI, "the user's class extends the built-in OpenAI");
  assert.equal(displayNameOf(Gpt41), "OpenAI/gpt-4.1");
  assert.deepEqual(Gpt41.requirements.map((requirement) => requirement.name), ["OPENAI_API_KEY"]);

  await using server = new FakeServer([(s) => openaiFake.answer(s, ["Yes."])]);
  // SVC_OPENAI_MODEL names another model: the pinned one wins.
  const pinned = configured(Gpt41, openaiFake.env(server.url));
  assert.equal(new pinned().displayName, "OpenAI/gpt-4.1");
  const texts = await Array.fromAsync(new pinned().answer("What grew?", SOURCES, chatParams()));
  assert.deepEqual(texts, ["Yes."]);
  assert.equal((server.last.body as { model: string }).model, "gpt-4.1");
});
