/**
 * Hostile requests to the REST API, in process: odd document names, oversized bodies, wrong
 * content types, metacharacters in every text field, and CORS from origins not listed. Tokens are
 * in hostile_tokens_test.ts, other users' ids in hostile_ids_test.ts.
 * @module
 */
import assert from "node:assert/strict";
import { testApi } from "../server/api/_api.ts";
import { chatBody, Echo, expectError, filesUnder, preparedChat, rawCall } from "./_hostile.ts";

const NAMES = [
  "../../etc/passwd.md",
  "..\\..\\windows\\win.ini.txt",
  "/etc/shadow.md",
  "a/b/c.md",
  "./.hidden.md",
  "\u202Egpj.md",
  "\u200F\u05E9\u05DC\u05D5\u05DD.md",
  "🦕 notes 📄.md",
  "名前 mit Umlaut ä.txt",
  "x'); DROP TABLE documents;--.md",
  '<img src=x onerror="alert(1)">.md',
  "&lt;b&gt;%00%2e%2e.md",
  `${"n".repeat(252)}.md`,
  `${"🦕".repeat(252)}.md`,
];

Deno.test("odd document names are kept verbatim, and files land under documents/<id> only", async () => {
  await using api = await testApi();
  const ids: string[] = [];
  for (const name of NAMES) {
    const { registered, response, document } = await api.upload(name, `# ${name}\n`);
    assert.equal(response.status, 200, name);
    assert.equal(registered.document.name, name);
    assert.deepEqual(document, registered.document);
    ids.push(document.id);
    const chat = await (await api.call("POST", "/chats", chatBody(document))).json();
    assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
    const answer = await (await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "?" }))
      .json();
    assert.equal(answer.sources[0].document.name, name);
    const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
    assert.equal(stored.metadata.documents[0].name, name);
  }
  // The stored path comes from the id alone: nothing else is written anywhere in the root.
  assert.deepEqual(
    await filesUnder(api.deps.localRoot),
    ids.map((id) => `documents/${id}`).sort(),
  );
});

Deno.test("document names that are too long, empty or hold control characters get 422", async () => {
  await using api = await testApi();
  const refused = [
    [`${"n".repeat(253)}.md`, "must be at most 255 characters"],
    [`${"🦕".repeat(253)}.md`, "must be at most 255 characters"],
    ["a\u0000b.md", "must not contain control characters"],
    ["line\nbreak.md", "must not contain control characters"],
    ["tab\t.md", "must not contain control characters"],
    ["bell\u0007.md", "must not contain control characters"],
    ["", "Too small: expected string to have >=1 characters"],
  ];
  for (const [name, problem] of refused) {
    await expectError(
      await api.call("POST", "/document", { name }),
      422,
      `The body is not valid: "name": ${problem}`,
    );
  }
  assert.deepEqual(await filesUnder(api.deps.localRoot), []);
});

Deno.test("bodies over 1 MiB get 413 on every JSON route, declared or streamed", async () => {
  await using api = await testApi({ maxUploadSize: 4 * 1024 * 1024 });
  const { chat } = await preparedChat(api);
  const big = "x".repeat(1024 * 1024);
  const message = "The body is larger than the limit of 1 MiB";
  await expectError(await api.call("POST", "/document", { name: `${big}.md` }), 413, message);
  await expectError(
    await api.call("POST", "/chats", { ...chat.metadata, name: big }),
    413,
    message,
  );
  await expectError(
    await api.call("POST", `/chats/${chat.id}/answer`, { prompt: big }),
    413,
    message,
  );
  await expectError(
    await api.call("POST", `/chats/${chat.id}/prepare`, { filler: big }),
    413,
    message,
  );
  // Without a declared length, the limit applies as the body streams in.
  const chunked = new ReadableStream({
    start(controller) {
      const chunk = new TextEncoder().encode(`{"prompt":"${"y".repeat(64 * 1024)}`);
      for (let i = 0; i < 20; i++) controller.enqueue(chunk);
      controller.close();
    },
  });
  await expectError(
    await rawCall(api, "POST", `/chats/${chat.id}/answer`, chunked, {
      "content-type": "application/json",
    }),
    413,
    message,
  );
  const login = new URLSearchParams({ username: big, password: big });
  await expectError(
    await api.app.request("http://svc.test/token", { method: "POST", body: login }),
    413,
    message,
  );
  // A prompt under the limit is answered, and an upload has its own, larger limit.
  const near = await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "z".repeat(900_000) });
  assert.equal(near.status, 200);
  const { response } = await api.upload("large.txt", "t".repeat(3 * 1024 * 1024));
  assert.equal(response.status, 200);
});

Deno.test("bodies of the wrong content type get 415 with what to send", async () => {
  await using api = await testApi();
  const { chat } = await preparedChat(api);
  const json = '"Content-Type: application/json"';
  const cases: [string, string, BodyInit, Record<string, string>, string][] = [
    ["POST", "/document", '{"name":"a.md"}', { "content-type": "text/plain" }, '"text/plain"'],
    ["POST", "/document", new Blob(['{"name":"a.md"}']), {}, '"no content type"'],
    [
      "POST",
      "/chats",
      new URLSearchParams({ name: "c" }),
      {},
      '"application/x-www-form-urlencoded"',
    ],
    [
      "POST",
      `/chats/${chat.id}/answer`,
      '{"prompt":"?"}',
      { "content-type": "text/html" },
      '"text/html"',
    ],
    [
      "POST",
      `/chat/${chat.id}/answer`,
      '{"prompt":"?"}',
      { "content-type": "application/xml" },
      '"application/xml"',
    ],
  ];
  for (const [method, path, body, headers, type] of cases) {
    await expectError(
      await rawCall(api, method, path, body, headers),
      415,
      `The body must be JSON, sent with ${json}, not ${type}`,
    );
  }
  await expectError(
    await api.app.request("http://svc.test/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"username":"ada","password":"ada"}',
    }),
    415,
    'The login must be a form, sent with "Content-Type: application/x-www-form-urlencoded" or ' +
      '"multipart/form-data"',
  );
  const registered = await (await api.call("POST", "/document", { name: "a.md" })).json();
  await expectError(
    await api.app.request(registered.parameters.url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...registered.parameters.data, file: "# A" }),
    }),
    415,
    'The upload must be multipart/form-data with the "token" field and a file part named "file"',
  );
  // JSON with a charset, or a +json type, is JSON.
  const withCharset = await rawCall(api, "POST", "/document", '{"name":"b.md"}', {
    "content-type": "application/json; charset=utf-8",
  });
  assert.equal(withCharset.status, 200);
  const vendor = await rawCall(api, "POST", "/document", '{"name":"c.md"}', {
    "content-type": "application/vnd.svc+json",
  });
  assert.equal(vendor.status, 200);
});

const METACHARACTERS = [
  "Robert'); DROP TABLE chats;--",
  '" OR "1"="1',
  "'; DELETE FROM messages WHERE '1'='1",
  "1; UPDATE users SET name = 'eve'",
  '<script>alert("x")</script>',
  '<img src=x onerror="alert(1)">',
  "&lt;b&gt; &amp; &#60;",
  "${7*7} {{7*7}} %s %n \\x00 \\u0000",
  "\u202Etxt.exe",
];

Deno.test("SQL and HTML metacharacters in every text field are stored and returned verbatim", async () => {
  await using api = await testApi({ assistants: [new Echo()] });
  for (const text of METACHARACTERS) {
    const name = `${text}.md`;
    const { document } = await api.upload(name, `# ${text}\n`);
    assert.equal(document.name, name);
    const metadata = chatBody(document, { name: text, assistant: "Echo", params: { style: text } });
    const created = await api.call("POST", "/chats", metadata);
    assert.equal(created.headers.get("content-type"), "application/json");
    const chat = await created.json();
    assert.deepEqual(chat.metadata, metadata);
    assert.equal((await api.call("POST", `/chats/${chat.id}/prepare`)).status, 200);
    const answer = await (await api.call("POST", `/chats/${chat.id}/answer`, { prompt: text }))
      .json();
    assert.equal(answer.content, `${text}|${text}`);
    const stored = await (await api.call("GET", `/chats/${chat.id}`)).json();
    assert.deepEqual(stored.metadata, metadata);
    assert.deepEqual(
      stored.messages.slice(1).map((m: { content: string }) => m.content),
      [text, `${text}|${text}`],
    );
  }
  // Every chat is still there: nothing was executed.
  const chats = await (await api.call("GET", "/chats")).json();
  assert.deepEqual(
    chats.map((c: { metadata: { name: string } }) => c.metadata.name),
    METACHARACTERS,
  );
});

Deno.test("U+0000, which the database would cut text at, gets 422 in any text field", async () => {
  await using api = await testApi();
  const { chat, document } = await preparedChat(api);
  const problem = "must not contain the character U+0000";
  await expectError(
    await api.call("POST", `/chats/${chat.id}/answer`, { prompt: "a\u0000b" }),
    422,
    `The body is not valid: "prompt": ${problem}`,
  );
  await expectError(
    await api.call("POST", "/chats", chatBody(document, { name: "a\u0000b" })),
    422,
    `The body is not valid: "name": ${problem}`,
  );
  await expectError(
    await api.call("POST", "/chats", chatBody({ ...document, name: "x\u0000.md" })),
    422,
    `The body is not valid: "documents.0.name": ${problem}`,
  );
});

Deno.test("CORS requests from an origin not listed get no allow-origin header", async () => {
  await using api = await testApi();
  const listed = "http://127.0.0.1:31477";
  for (
    const origin of ["http://evil.example", "null", "http://127.0.0.1:31478", `${listed}.evil`]
  ) {
    const preflight = await api.app.request("http://svc.test/chats", {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST" },
    });
    assert.equal(preflight.headers.get("access-control-allow-origin"), null, origin);
    const simple = await api.call("GET", "/chats", undefined, { origin });
    assert.equal(simple.status, 200);
    assert.equal(simple.headers.get("access-control-allow-origin"), null, origin);
  }
  const allowed = await api.call("GET", "/chats", undefined, { origin: listed });
  assert.equal(allowed.headers.get("access-control-allow-origin"), listed);
});
