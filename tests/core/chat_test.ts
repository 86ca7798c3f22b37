import assert from "node:assert/strict";
import { z } from "zod";
import { Assistant, SourceStorage } from "../../components/core/component.ts";
import { LocalDocument } from "../../components/core/document.ts";
import { SvcError } from "../../components/core/errors.ts";
import { Message, MessageRole } from "../../components/core/message.ts";
import type { ChatParams } from "../../components/core/params.ts";
import type { Source } from "../../components/core/source.ts";
// Through the library's door.
import { ClassPaths, Rag } from "../../components/mod.ts";
import { SvcDemoAssistant } from "../../components/assistants/demo.ts";
import { SvcDemoSourceStorage } from "../../components/source_storages/demo.ts";
import { LibSQL } from "../../components/source_storages/libsql.ts";
import { copiedFixture } from "../source_storages/_helpers.ts";
import { tmpDir, tmpLocalRoot, writeFile } from "../test_utils.ts";

class TypedAssistant extends Assistant {
  static override params = {
    bool_param: z.boolean(),
    int_param: z.int(),
    float_param: z.number(),
    string_param: z.string(),
  };
  override *answer() {
    yield "typed";
  }
}

async function demoChat(params: Record<string, unknown> = {}) {
  const dir = await tmpDir();
  const path = await writeFile(dir.path, "demo_document.txt", "The chat's only document.\n");
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: SvcDemoSourceStorage,
    assistant: SvcDemoAssistant,
    params,
  });
  return { dir, path, chat };
}

Deno.test("Rag.chat() names each unknown parameter with its value", () => {
  const error = assertThrowsSvc(() =>
    new Rag().chat({
      documents: [],
      sourceStorage: SvcDemoSourceStorage,
      assistant: SvcDemoAssistant,
      params: { bool_param: false, int_param: 1, float_param: 0.5, string_param: "arbitrary" },
    })
  );
  assert.equal(error.status, 422);
  assert.match(error.message, /unknown/);
  for (
    const line of ["bool_param=false", "int_param=1", "float_param=0.5", 'string_param="arbitrary"']
  ) {
    assert.ok(error.message.includes(`- ${line}`), `${line} in ${error.message}`);
  }
});

Deno.test("Rag.chat() names each missing parameter with its type", () => {
  const error = assertThrowsSvc(() =>
    new Rag().chat({
      documents: [],
      sourceStorage: SvcDemoSourceStorage,
      assistant: TypedAssistant,
    })
  );
  assert.match(error.message, /missing/);
  for (
    const line of [
      "bool_param: boolean",
      "int_param: integer",
      "float_param: number",
      "string_param: string",
    ]
  ) {
    assert.ok(error.message.includes(`- ${line}`), `${line} in ${error.message}`);
  }
});

Deno.test("Rag.chat() names each wrong-type parameter with its type and value", () => {
  const error = assertThrowsSvc(() =>
    new Rag().chat({
      documents: [],
      sourceStorage: SvcDemoSourceStorage,
      assistant: TypedAssistant,
      params: { bool_param: 1, int_param: 0.5, float_param: "arbitrary", string_param: false },
    })
  );
  assert.match(error.message, /wrong type/);
  assert.match(error.message, /^The chat parameters have 4 problems:/);
  for (
    const line of [
      "bool_param: boolean = 1",
      "int_param: integer = 0.5",
      'float_param: number = "arbitrary"',
      "string_param: string = false",
    ]
  ) {
    assert.ok(error.message.includes(`- ${line}`), `${line} in ${error.message}`);
  }
});

Deno.test("Rag.chat() makes a LocalDocument of a path", async () => {
  const { dir, path, chat } = await demoChat();
  await using _ = dir;
  assert.equal(chat.documents.length, 1);
  const [document] = chat.documents;
  assert.ok(document instanceof LocalDocument);
  assert.equal(document.path, path);
  assert.equal(document.name, "demo_document.txt");
});

Deno.test("Rag.chat() refuses an unsupported document by name", () => {
  const error = assertThrowsSvc(() =>
    new Rag().chat({
      documents: ["notes.odt"],
      sourceStorage: SvcDemoSourceStorage,
      assistant: SvcDemoAssistant,
    })
  );
  assert.equal(error.status, 422);
  assert.match(error.message, /^Cannot read "notes\.odt": the suffix "\.odt" is not supported/);
});

Deno.test("Rag.chat() refuses an unknown class path and lists the known ones", () => {
  const error = assertThrowsSvc(() =>
    new Rag().chat({
      documents: [],
      sourceStorage: "svc.source_storages.Nope",
      assistant: SvcDemoAssistant,
    })
  );
  assert.match(error.message, /Unknown class path "svc\.source_storages\.Nope"/);
  assert.match(error.message, /svc\.source_storages\.SvcDemoSourceStorage/);
});

Deno.test("A chat refuses a component of the wrong family: in prepare() until its class is loaded, then in Rag.chat()", async () => {
  const options = {
    documents: [],
    sourceStorage: "svc.assistants.SvcDemoAssistant",
    assistant: SvcDemoAssistant,
  };
  const rag = new Rag(
    new ClassPaths({
      "svc.assistants.SvcDemoAssistant": () =>
        import("../../components/assistants/demo.ts").then((m) => m.SvcDemoAssistant),
    }),
  );
  const unloaded = rag.chat(options);
  await assert.rejects(unloaded.prepare(), /is not a subclass of SourceStorage/);
  const error = assertThrowsSvc(() => rag.chat(options));
  assert.match(error.message, /is not a subclass of SourceStorage/);
});

Deno.test("Chat answers only after prepare(), and prepares only once", async () => {
  const { dir, chat } = await demoChat();
  await using _ = dir;
  await assert.rejects(
    chat.answer("?"),
    (e) => e instanceof SvcError && e.status === 400 && /not prepared/.test(e.message),
  );
  const welcome = await chat.prepare();
  assert.equal(welcome.role, MessageRole.SYSTEM);
  assert.equal(welcome.content, "How can I help you with the documents?");
  await assert.rejects(
    chat.prepare(),
    (e) => e instanceof SvcError && e.status === 400 && /prepared already/.test(e.message),
  );
});

Deno.test("Chat runs the demo components end to end with sources", async () => {
  await using dir = await tmpDir();
  const path = await writeFile(dir.path, "test.txt", "!\n");
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: "svc.source_storages.SvcDemoSourceStorage",
    assistant: "svc.assistants.SvcDemoAssistant",
  });
  await chat.prepare();
  const answer = await chat.answer("?");
  assert.ok(answer instanceof Message);
  assert.equal(answer.role, MessageRole.ASSISTANT);
  assert.deepEqual(new Set(answer.sources.map((s) => s.document.name)), new Set(["test.txt"]));
  assert.match(answer.content, /> \?/);
  assert.deepEqual(chat.messages.map((m) => m.role), ["system", "user", "assistant"]);
});

Deno.test("Chat streams an answer chunk by chunk", async () => {
  class Words extends Assistant {
    override async *answer(prompt: string) {
      for (const word of prompt.split(" ")) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        yield `${word} `;
      }
    }
  }
  const { dir, chat } = await demoChat();
  await using _ = dir;
  const rag = new Rag();
  const streamed = rag.chat({
    documents: chat.documents,
    sourceStorage: SvcDemoSourceStorage,
    assistant: Words,
  });
  await streamed.prepare();
  const answer = await streamed.answer("one two three", { stream: true });
  assert.throws(() => answer.content, SvcError);
  assert.deepEqual(await Array.fromAsync(answer), ["one ", "two ", "three "]);
  assert.equal(answer.content, "one two three ");
  assert.equal(answer.sources.length, 1);
});

Deno.test("Chat calls plain and async component methods with params and specials", async () => {
  const calls: string[] = [];
  class Plain extends SourceStorage {
    static override params = { num_tokens: z.int().default(1024) };
    override store(_documents: unknown, params: ChatParams) {
      calls.push(`store ${params.num_tokens} ${params.chat_name} ${params.user}`);
    }
    override retrieve(documents: LocalDocument[], _prompt: string, params: ChatParams): Source[] {
      calls.push(`retrieve ${params.chat_id}`);
      return [{ id: "1", document: documents[0]!, location: "", content: "c", numTokens: 1 }];
    }
  }
  class Async extends Assistant {
    static override params = { max_new_tokens: z.int().default(256) };
    override async answer(_prompt: string, sources: Source[], params: ChatParams) {
      calls.push(`answer ${params.max_new_tokens} ${sources.length} ${params.signal.aborted}`);
      return await Promise.resolve(["whole"]);
    }
  }
  const { dir, path } = await demoChat();
  await using _ = dir;
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: Plain,
    assistant: Async,
    params: { num_tokens: 7, chat_id: "id-1", chat_name: "Mine", user: "ada" },
  });
  assert.equal(chat.id, "id-1");
  await chat.prepare();
  assert.equal((await chat.answer("?")).content, "whole");
  assert.deepEqual(calls, ["store 7 Mine ada", "retrieve id-1", "answer 256 1 false"]);
});

Deno.test("Chat.retrieve() gives the storage's sources without the assistant or a message, and delete() forgets them", async () => {
  const calls: string[] = [];
  class Counting extends SourceStorage {
    static override params = { num_tokens: z.int().default(1024) };
    override store() {}
    override retrieve(documents: LocalDocument[], prompt: string, params: ChatParams): Source[] {
      calls.push(`retrieve ${prompt} ${params.num_tokens}`);
      return [{ id: "1", document: documents[0]!, location: "2", content: "c", numTokens: 1 }];
    }
    override delete(params: ChatParams) {
      calls.push(`delete ${params.chat_id}`);
    }
  }
  class Refusing extends Assistant {
    override answer(): string {
      throw new Error("the assistant was asked");
    }
  }
  const { dir, path } = await demoChat();
  await using _ = dir;
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: Counting,
    assistant: Refusing,
    params: { num_tokens: 9, chat_id: "id-2" },
  });
  await assert.rejects(chat.retrieve("?"), /call prepare\(\) before retrieve\(\)/);
  await chat.prepare();
  const sources = await chat.retrieve("Where?");
  assert.deepEqual(sources.map((source) => source.location), ["2"]);
  assert.equal(chat.messages.length, 1);
  await chat.delete();
  assert.deepEqual(calls, ["retrieve Where? 9", "delete id-2"]);
});

Deno.test("Chat passes the answer's signal to the assistant", async () => {
  let seen: AbortSignal | undefined;
  class Watching extends Assistant {
    override *answer(_prompt: string, _sources: Source[], params: ChatParams) {
      seen = params.signal;
      yield "x";
    }
  }
  const { dir, chat: demo } = await demoChat();
  await using _ = dir;
  const chat = new Rag().chat({
    documents: demo.documents,
    sourceStorage: SvcDemoSourceStorage,
    assistant: Watching,
  });
  await chat.prepare();
  const controller = new AbortController();
  await chat.answer("?", { signal: controller.signal });
  controller.abort();
  assert.equal(seen?.aborted, true);
});

Deno.test("Chat.prepare() refuses a path that is no file, naming the path as given", async () => {
  await using dir = await tmpDir();
  const chat = (document: string) =>
    new Rag().chat({
      documents: [document],
      sourceStorage: SvcDemoSourceStorage,
      assistant: SvcDemoAssistant,
    });
  const missing = chat(`${dir.path}/missing.md`);
  await assert.rejects(missing.prepare(), (e) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.status, 404);
    assert.equal(e.message, `Cannot read "${dir.path}/missing.md": no such file`);
    return true;
  });
  assert.equal(missing.prepared, false);
  await Deno.mkdir(`${dir.path}/folder.md`);
  await assert.rejects(
    chat(`${dir.path}/folder.md`).prepare(),
    {
      name: "SvcError",
      status: 404,
      message: `Cannot read "${dir.path}/folder.md": it is a folder`,
    },
  );
});

Deno.test("Chat.prepare() refuses a Document that is gone without naming a path", async () => {
  await using dir = await tmpDir();
  const document = new LocalDocument({
    id: crypto.randomUUID(),
    name: "report.pdf",
    metadata: { path: `${dir.path}/${crypto.randomUUID()}` },
  });
  const chat = new Rag().chat({
    documents: [document],
    sourceStorage: SvcDemoSourceStorage,
    assistant: SvcDemoAssistant,
  });
  await assert.rejects(
    chat.prepare(),
    {
      name: "SvcError",
      status: 404,
      message: 'Cannot read "report.pdf": it was never uploaded or is gone',
    },
  );
});

Deno.test("Chat loads a user's component from a module path at prepare()", async () => {
  await using dir = await tmpDir();
  const module = await writeFile(
    dir.path,
    "mine.ts",
    `import { Assistant } from "${new URL("../../components/core/component.ts", import.meta.url)}";
     export class Echo extends Assistant { *answer(prompt) { yield prompt.toUpperCase(); } }`,
  );
  const path = await writeFile(dir.path, "a.md", "# A\n");
  const chat = new Rag().chat({
    documents: [path],
    sourceStorage: SvcDemoSourceStorage,
    assistant: `${module}#Echo`,
  });
  await chat.prepare();
  assert.equal((await chat.answer("loud")).content, "LOUD");
  const missing = new Rag().chat({
    documents: [path],
    sourceStorage: SvcDemoSourceStorage,
    assistant: `${module}#Nope`,
  });
  await assert.rejects(missing.prepare(), /has no export "Nope"; its exports are Echo/);
});

Deno.test("Rag keeps one instance per component class", () => {
  const rag = new Rag();
  assert.equal(rag.instance(SvcDemoAssistant), rag.instance(SvcDemoAssistant));
});

function assertThrowsSvc(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof SvcError, `not an SvcError: ${error}`);
    return error;
  }
  assert.fail("nothing was thrown");
}

Deno.test("Chat retrieves a follow-up with the question before it, and gives both components the history", async () => {
  await using root = await tmpLocalRoot();
  // Three sections: what "undo" names alone is the editor's; after a question on freezing, thawing.
  const path = await copiedFixture(root.path, "kitchen.md");
  let history: ChatParams["history"];
  class Recording extends SvcDemoAssistant {
    override answer(prompt: string, sources: Source[], params: ChatParams) {
      history = params.history;
      return super.answer(prompt, sources, params);
    }
  }
  const chat = () =>
    new Rag().chat({
      documents: [path],
      sourceStorage: LibSQL,
      assistant: Recording,
      params: { chunk_size: 64, chunk_overlap: 0 },
    });
  const freezer = /Bread in the freezer/;

  // Alone, the follow-up finds what its own words name: undoing in the editor.
  const alone = chat();
  await alone.prepare();
  const [first] = await alone.retrieve("And how do I undo that?");
  assert.doesNotMatch(first!.content, freezer);
  assert.match(first!.content, /Ctrl\+Z/);
  await alone.delete();

  const asked = chat();
  await asked.prepare();
  assert.match(
    (await asked.answer("How long can bread stay frozen?")).sources[0]!.content,
    freezer,
  );
  assert.deepEqual(history!.map((message) => message.role), ["system"]);
  const followUp = await asked.answer("And how do I undo that?");
  assert.match(followUp.sources[0]!.content, freezer);
  assert.match(followUp.sources[0]!.content, /leave the frozen loaf on the counter/);
  assert.deepEqual(history!.map((message) => message.content).slice(1), [
    "How long can bread stay frozen?",
    await asked.messages[2]!.read(),
  ]);
  await asked.delete();
});

/** A source storage that stores the documents one by one, and fails at the one named "bad". */
class FailingAtBad extends SourceStorage {
  static override displayName = "Test/FailingAtBad";
  stored = new Set<string>();
  deleted = 0;
  override store(documents: LocalDocument[], params: ChatParams): void {
    for (const document of documents) {
      params.progress?.({ document, stage: "reading" });
      if (document.name === "bad.txt") {
        throw new SvcError(`Cannot read "bad.txt": it is bad`, { status: 422 });
      }
      this.stored.add(document.name);
      params.progress?.({ document, stage: "indexed", chunks: 1 });
    }
  }
  override retrieve(): Source[] {
    return [];
  }
  override delete(): void {
    this.deleted++;
    this.stored.clear();
  }
}

Deno.test("Chat.prepare() reports each document's steps, and keeps nothing of a failure", async () => {
  await using dir = await tmpDir();
  const good = await writeFile(dir.path, "good.txt", "Fine.\n");
  const bad = await writeFile(dir.path, "bad.txt", "Not fine.\n");
  const storage = new FailingAtBad();
  const chat = new Rag().chat({
    documents: [good, bad],
    sourceStorage: storage,
    assistant: SvcDemoAssistant,
  });
  const steps: string[] = [];
  await assert.rejects(
    chat.prepare({ onProgress: (step) => steps.push(`${step.document.name} ${step.stage}`) }),
    /bad\.txt/,
  );
  assert.deepEqual(steps, ["good.txt reading", "good.txt indexed", "bad.txt reading"]);
  assert.equal(storage.deleted, 1, "what was stored of the chat is removed");
  assert.deepEqual([...storage.stored], []);
  assert.equal(chat.prepared, false);
});

Deno.test("Chat.prepare() names an unreadable document as a failed step before storing anything", async () => {
  await using dir = await tmpDir();
  const good = await writeFile(dir.path, "good.txt", "Fine.\n");
  const storage = new FailingAtBad();
  const chat = new Rag().chat({
    documents: [good, `${dir.path}/gone.txt`],
    sourceStorage: storage,
    assistant: SvcDemoAssistant,
  });
  const steps: string[] = [];
  const error = await chat.prepare({
    onProgress: (step) => steps.push(`${step.document.name} ${step.stage}`),
  }).catch((e) => e);
  assert.equal(error.status, 404);
  assert.match(error.message, /gone\.txt": no such file/);
  assert.deepEqual(steps, ["gone.txt failed"]);
  assert.deepEqual([...storage.stored], []);
});

Deno.test("Chat.addDocuments() stores only the new documents of a prepared chat, and refuses one it has", async () => {
  await using dir = await tmpDir();
  const first = await writeFile(dir.path, "first.txt", "One.\n");
  const second = await writeFile(dir.path, "second.txt", "Two.\n");
  const storage = new FailingAtBad();
  const chat = new Rag().chat({
    documents: [first],
    sourceStorage: storage,
    assistant: SvcDemoAssistant,
  });
  await chat.prepare();
  storage.stored.clear();
  const added = LocalDocument.fromPath(second);
  const steps: string[] = [];
  await chat.addDocuments([added], {
    onProgress: (step) => steps.push(`${step.document.name} ${step.stage}`),
  });
  assert.deepEqual([...storage.stored], ["second.txt"]);
  assert.deepEqual(steps, ["second.txt reading", "second.txt indexed"]);
  assert.deepEqual(chat.documents.map((d) => d.name), ["first.txt", "second.txt"]);
  const again = await chat.addDocuments([added]).catch((e) => e);
  assert.equal(again.status, 409);
  assert.match(again.message, /second\.txt/);
});
