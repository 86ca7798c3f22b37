import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { Assistant } from "../../../components/core/component.ts";
import { SvcError } from "../../../components/core/errors.ts";
import { testApi } from "./_api.ts";

async function expectError(response: Response, status: number, pattern: RegExp) {
  assert.equal(response.status, status);
  const body = await response.json();
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.match(body.error.message, pattern);
}

async function preparedChat(
  api: Awaited<ReturnType<typeof testApi>>,
  assistant = "Svc/DemoAssistant",
) {
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "c",
    source_storage: "Svc/DemoSourceStorage",
    assistant,
    params: {},
    documents: [document],
  })).json();
  await api.call("POST", `/chats/${chat.id}/prepare`);
  return chat;
}

Deno.test("the REST API answers 401 without a valid bearer token", async () => {
  await using api = await testApi();
  await expectError(await api.app.request("http://svc.test/chats"), 401, /no bearer token/);
  await expectError(
    await api.app.request("http://svc.test/chats", { headers: { authorization: "Bearer x.y.z" } }),
    401,
    /not valid/,
  );
  await expectError(
    await api.app.request("http://svc.test/token", {
      method: "POST",
      body: new URLSearchParams({ username: "ada", password: "eve" }),
    }),
    401,
    /wrong/,
  );
});

Deno.test("the REST API keeps users apart with 404", async () => {
  await using api = await testApi();
  const chat = await preparedChat(api);
  await api.as("bob");
  await expectError(await api.call("GET", `/chats/${chat.id}`), 404, /No chat/);
  await expectError(await api.call("DELETE", `/chats/${chat.id}`), 404, /No chat/);
  await expectError(
    await api.call("POST", "/chats", { ...chat.metadata, name: "theft" }),
    404,
    /No document/,
  );
  assert.deepEqual(await (await api.call("GET", "/chats")).json(), []);
});

Deno.test("the REST API answers 404 for an unknown chat and route, 405 for a wrong method", async () => {
  await using api = await testApi();
  await expectError(await api.call("GET", "/chats/nope"), 404, /No chat "nope"/);
  await expectError(await api.call("GET", "/nowhere"), 404, /no route/);
  const response = await api.call("GET", "/document");
  assert.equal(response.headers.get("allow"), "POST, PUT");
  await expectError(response, 405, /GET is not allowed on \/document/);
});

Deno.test("the REST API answers 400 for prepare twice and answer before prepare", async () => {
  await using api = await testApi();
  const { document } = await api.upload("a.md", "# A\n");
  const chat = await (await api.call("POST", "/chats", {
    name: "c",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    params: {},
    documents: [document],
  })).json();
  await expectError(
    await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "?" }),
    400,
    /not prepared/,
  );
  assert.equal((await api.call("POST", `/chat/${chat.id}/prepare`)).status, 200);
  await expectError(await api.call("POST", `/chats/${chat.id}/prepare`), 400, /prepared already/);
});

Deno.test("the REST API answers 422 for an unknown component, naming it and the known ones", async () => {
  await using api = await testApi();
  const { document } = await api.upload("test.txt", "!\n");
  await expectError(
    await api.call("POST", "/chats", {
      name: "c",
      source_storage: "unknown_source_storage",
      assistant: "unknown_assistant",
      params: {},
      documents: [document],
    }),
    422,
    /Unknown component: no source storage is called "unknown_source_storage"; known are "Svc\/DemoSourceStorage"/,
  );
});

Deno.test("the REST API answers 422 for bad bodies, suffixes and params", async () => {
  await using api = await testApi();
  await expectError(
    await api.call("POST", "/document", { name: "x.exe" }),
    422,
    /"\.exe" is not supported/,
  );
  await expectError(await api.call("POST", "/document", {}), 422, /"name"/);
  await expectError(
    await api.call("POST", "/document", "not json", { "content-type": "application/json" }),
    422,
    /must be JSON/,
  );
  const { document } = await api.upload("a.md", "# A\n");
  const base = {
    name: "c",
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Svc/DemoAssistant",
    documents: [document],
  };
  await expectError(
    await api.call("POST", "/chats", { ...base, params: { chunk_size: 5 } }),
    422,
    /- chunk_size=5/,
  );
  await expectError(
    await api.call("POST", "/chats", { ...base, params: { user: "eve" } }),
    422,
    /"user" is set by svc/,
  );
  await expectError(await api.call("POST", "/chats", base), 422, /"params"/);
});

Deno.test("the REST API refuses an upload over the limit with 413 and leaves no file", async () => {
  await using api = await testApi({ maxUploadSize: 1000 });
  const { response, registered } = await api.upload("big.txt", "x".repeat(5000));
  assert.equal(response.status, 413);
  const files = [...Deno.readDirSync(`${api.deps.localRoot}/documents`)];
  assert.deepEqual(files, []);
  assert.ok(registered.document.id);
});

Deno.test("the REST API refuses uploads with a bad token and stores nothing", async () => {
  await using api = await testApi();
  const form = new FormData();
  form.set("token", "forged");
  form.set("file", new Blob(["x"]), "a.md");
  await expectError(
    await api.app.request("http://svc.test/document", { method: "PUT", body: form }),
    401,
    /upload token is not valid/,
  );
  // Refused before a byte was written: not even the folder was made.
  assert.equal(existsSync(`${api.deps.localRoot}/documents`), false);
});

Deno.test("the REST API keeps the prompt of an answer that failed, and the answer as far as it was written, marked failed", async () => {
  class Failing extends Assistant {
    override async *answer() {
      yield "half";
      await Promise.resolve();
      throw new SvcError("The provider answered 500: overloaded", { status: 502 });
    }
  }
  class Refusing extends Assistant {
    // deno-lint-ignore require-yield
    override async *answer(): AsyncGenerator<string> {
      throw new SvcError("The provider answered 401: bad key", { status: 502 });
    }
  }
  await using api = await testApi({ assistants: [new Failing(), new Refusing()] });
  const failing = await preparedChat(api, "Failing");
  const streamed = await api.call("POST", `/chats/${failing.id}/answer`, {
    prompt: "p1",
    stream: true,
  });
  assert.equal(streamed.status, 200);
  const lines = (await streamed.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].content, "half");
  assert.deepEqual(lines.at(-1), { error: { message: "The provider answered 500: overloaded" } });
  await expectError(
    await api.call("POST", `/chats/${failing.id}/answer`, { prompt: "p2" }),
    502,
    /overloaded/,
  );
  const refusing = await preparedChat(api, "Refusing");
  await expectError(
    await api.call("POST", `/chats/${refusing.id}/answer`, { prompt: "p3", stream: true }),
    502,
    /bad key/,
  );
  // A whole answer that failed keeps its text as far as it was written too: it runs on the
  // server alike, streamed or not, and a reader who reloads saw it grow.
  const cases = [[failing, [["p1", "half"], ["p2", "half"]]], [refusing, [["p3", ""]]]] as const;
  for (const [chat, turns] of cases) {
    const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
    assert.deepEqual(
      stored.messages.map((
        m: { role: string; content: string; status?: string },
      ) => [m.role, m.content, m.status]),
      [
        ["system", "How can I help you with the documents?", undefined],
        ...turns.flatMap(([prompt, written]) => [
          ["user", prompt, undefined],
          ["assistant", written, "failed"],
        ]),
      ],
    );
  }
});

Deno.test("the REST API serves every route under root_path and allows its origins", async () => {
  await using api = await testApi({ rootPath: "/svc" });
  const { registered } = await api.upload("a.md", "# A\n");
  assert.equal(registered.parameters.url, "http://svc.test/svc/document");
  assert.equal(registered.parameters.method, "PUT");
  assert.deepEqual(await (await api.app.request("http://svc.test/svc/health")).json(), {
    status: "ok",
  });
  assert.equal((await api.app.request("http://svc.test/health")).status, 404);
  const preflight = await api.app.request("http://svc.test/svc/chats", {
    method: "OPTIONS",
    headers: { origin: "http://127.0.0.1:31477", "access-control-request-method": "POST" },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "http://127.0.0.1:31477");
  assert.equal(preflight.headers.get("access-control-allow-credentials"), "true");
});

Deno.test("the REST API answers 500 for a bug with a request id, and logs it", async () => {
  class Buggy extends Assistant {
    override answer(): never {
      throw new TypeError("undefined is not a function");
    }
  }
  await using api = await testApi({ assistants: [new Buggy()] });
  const chat = await preparedChat(api, "Buggy");
  const response = await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "?" });
  assert.equal(response.status, 500);
  const { error } = await response.json();
  const id = error.message.match(/request (\w+)/)?.[1];
  assert.ok(id);
  const logged = api.logs.map((line) => JSON.parse(line));
  assert.ok(logged.some((line) =>
    line.request_id === id && line.level === "error" &&
    line.stack.includes("undefined is not a function")
  ));
});

Deno.test("the REST API quotes excerpts of what the client sent, however long", async () => {
  await using api = await testApi();
  const letters = "A".repeat(64_000);
  await expectError(
    await api.call("GET", `/${letters}`),
    404,
    new RegExp(`^There is no route /${"A".repeat(99)}…${"A".repeat(40)}$`),
  );
  await expectError(
    await api.call("PUT", `/chats/${letters}`),
    405,
    new RegExp(`^PUT is not allowed on /chats/${"A".repeat(93)}…${"A".repeat(40)}; use `),
  );
  // A 900 KB key of a JSON body: quoted cut short.
  const key = letters.repeat(14);
  const unknownKey = await (await api.call("POST", "/document", { name: "c", [key]: 1 })).json();
  assert.match(
    unknownKey.error.message,
    new RegExp(`^The body is not valid: The body: Unrecognized key: "${"A".repeat(60)}.*…A+"$`),
  );
  assert.ok(unknownKey.error.message.length < 300, unknownKey.error.message);
  // Many fields wrong, one of them 900 KB long: each cut short, and the list too.
  const response = await api.call("POST", "/chats", {
    name: key,
    documents: Array.from({ length: 30 }, (_, i) => i),
  });
  const { error } = await response.json();
  assert.equal(response.status, 422);
  assert.ok(error.message.length < 3000, `${error.message.length} characters`);
  assert.match(error.message, /^The body is not valid: .*; and \d+ more$/);
});
