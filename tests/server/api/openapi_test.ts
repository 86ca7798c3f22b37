import assert from "node:assert/strict";
import { testApi } from "./_api.ts";

Deno.test("/openapi.json describes every route with its methods", async () => {
  await using api = await testApi();
  const document = await (await api.app.request("http://svc.test/openapi.json")).json();
  assert.equal(document.openapi, "3.1.0");
  const routes = Object.entries(document.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
    .sort();
  assert.deepEqual(routes, [
    "delete /api-keys/{id}",
    "delete /chats/{id}",
    "delete /chats/{id}/documents/{document_id}",
    "delete /documents/{id}",
    "get /",
    "get /api-keys",
    "get /api-keys/{id}",
    "get /chats",
    "get /chats/{id}",
    "get /chats/{id}/messages/{message_id}",
    "get /chats/{id}/messages/{message_id}/branch",
    "get /chats/{id}/messages/{message_id}/stream",
    "get /components",
    "get /documents",
    "get /documents/{id}/content",
    "get /documents/{id}/pages",
    "get /documents/{id}/view",
    "get /health",
    "get /v1/models",
    "patch /chats/{id}",
    "post /api-keys",
    "post /chats",
    "post /chats/{id}/answer",
    "post /chats/{id}/documents",
    "post /chats/{id}/messages/{message_id}/edit",
    "post /chats/{id}/messages/{message_id}/feedback",
    "post /chats/{id}/prepare",
    "post /chats/{id}/regenerate",
    "post /chats/{id}/stop",
    "post /document",
    "post /logout",
    "post /token",
    "post /v1/chat/completions",
    "put /document",
  ]);
  const answer = document.paths["/chats/{id}/answer"].post;
  assert.deepEqual(Object.keys(answer.responses[200].content), [
    "application/json",
    "application/x-ndjson",
  ]);
  assert.deepEqual(answer.requestBody.content["application/json"].schema.required, ["prompt"]);
  const content = document.paths["/documents/{id}/content"].get;
  assert.ok(Object.keys(content.responses[200].content).includes("application/pdf"));
  const completions = document.paths["/v1/chat/completions"].post;
  assert.deepEqual(Object.keys(completions.responses[200].content), [
    "application/json",
    "text/event-stream",
  ]);
  const error = completions.responses.default.content["application/json"].schema;
  assert.deepEqual(error.$defs.OpenAIError.properties.error.required, [
    "message",
    "type",
    "param",
    "code",
  ]);
});

Deno.test("/openapi.json describes every route in the app's route table, and no other", async () => {
  await using api = await testApi();
  const document = await (await api.app.request("http://svc.test/openapi.json")).json();
  const described = Object.entries(document.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
    .sort();
  // Routes that are served but deliberately not operations of the document:
  // the 0.2.1 aliases of the /chats paths, the document and its page, and
  // MCP, whose JSON-RPC messages are described by MCP's own schema.
  const undescribed = [
    "post /chat/{id}/prepare",
    "post /chat/{id}/answer",
    "get /openapi.json",
    "get /docs",
    "get /docs/swagger-ui.css",
    "get /docs/swagger-ui-bundle.js",
    "post /mcp",
  ];
  const served = api.app.routes
    // Middleware (`app.use`) is listed as ALL on a wildcard path: it is not a route.
    .filter((route) => !(route.method === "ALL" && route.path.endsWith("*")))
    .map((route) =>
      `${route.method.toLowerCase()} ${route.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`
    );
  assert.deepEqual(undescribed.filter((route) => !served.includes(route)), []);
  assert.deepEqual(served.filter((route) => !undescribed.includes(route)).sort(), described);
});

Deno.test("/docs renders the API with assets served by svc itself", async () => {
  await using api = await testApi({ rootPath: "/svc" });
  const page = await (await api.app.request("http://svc.test/svc/docs")).text();
  const assets = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(assets, ["docs/swagger-ui.css", "docs/swagger-ui-bundle.js"]);
  for (const asset of assets) {
    const response = await api.app.request(new URL(asset, "http://svc.test/svc/docs").href);
    assert.equal(response.status, 200, asset);
    assert.ok((await response.arrayBuffer()).byteLength > 10_000, asset);
  }
  assert.match(page, /url: "openapi\.json"/);
});

Deno.test("/openapi.json describes the query of GET /chats and both of its shapes", async () => {
  await using api = await testApi();
  const document = await (await api.app.request("http://svc.test/openapi.json")).json();
  const list = document.paths["/chats"].get;
  assert.deepEqual(list.parameters.map((p: { name: string; in: string }) => [p.name, p.in]), [
    ["messages", "query"],
  ]);
  const [messages] = list.parameters;
  assert.equal(messages.required, false);
  assert.deepEqual(messages.schema, { default: "true", type: "string", enum: ["true", "false"] });
  assert.match(messages.description, /"false" lists each chat without its messages/);
  const { anyOf, $defs } = list.responses[200].content["application/json"].schema;
  assert.deepEqual(
    anyOf.map((shape: { items: { $ref: string } }) =>
      $defs[shape.items.$ref.replace("#/$defs/", "")].required
    ),
    [
      ["id", "metadata", "messages", "prepared"],
      ["id", "metadata", "prepared", "num_messages", "last_activity"],
    ],
  );
  const body = document.paths["/chats"].post.requestBody.content["application/json"].schema;
  const metadata = body.$ref ? body.$defs[body.$ref.replace("#/$defs/", "")] : body;
  assert.equal(metadata.properties.name.maxLength, 255);
});

Deno.test("/openapi.json names the places of the upload token: form field, header and query", async () => {
  await using api = await testApi();
  const document = await (await api.app.request("http://svc.test/openapi.json")).json();
  const upload = document.paths["/document"].put;
  const places = upload.parameters.map((p: { in: string; name: string }) => `${p.in} ${p.name}`);
  assert.deepEqual(places, ["query token", "header X-Upload-Token"]);
  const form = upload.requestBody.content["multipart/form-data"].schema;
  assert.deepEqual(form.required, ["token", "file"]);
  assert.match(form.properties.token.description, /before the file part/);
});

Deno.test("/openapi.json describes DELETE /documents/{id} with its 404 and 409", async () => {
  await using api = await testApi();
  const document = await (await api.app.request("http://svc.test/openapi.json")).json();
  const deletion = document.paths["/documents/{id}"].delete;
  assert.deepEqual(deletion.security, [{ bearer: [] }]);
  assert.deepEqual(deletion.parameters.map((p: { name: string; in: string }) => [p.name, p.in]), [
    ["id", "path"],
  ]);
  assert.deepEqual(Object.keys(deletion.responses), ["200", "404", "409", "default"]);
  assert.match(deletion.responses[409].description, /Chats still use the document/);
  const response = await api.app.request("http://svc.test/documents/x", { method: "GET" });
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("Allow"), "DELETE");
});

Deno.test("/openapi.json describes the routes of running answers, versions and feedback with their parameters and errors", async () => {
  await using api = await testApi();
  const { paths } = await (await api.app.request("http://svc.test/openapi.json")).json();
  const feedback = paths["/chats/{id}/messages/{message_id}/feedback"].post;
  assert.deepEqual(feedback.parameters.map((p: { name: string }) => p.name), ["id", "message_id"]);
  assert.deepEqual(Object.keys(feedback.responses).sort(), ["200", "400", "404", "default"]);
  assert.deepEqual(feedback.requestBody.content["application/json"].schema.required, ["rating"]);
  assert.deepEqual(Object.keys(paths["/chats/{id}/stop"].post.responses).sort(), [
    "200",
    "404",
    "default",
  ]);
  const follow = paths["/chats/{id}/messages/{message_id}/stream"].get;
  assert.deepEqual(Object.keys(follow.responses[200].content), ["application/x-ndjson"]);
  const chat = paths["/chats/{id}"].get.responses[200].content["application/json"].schema;
  const fields = chat.$defs.Message.properties;
  assert.deepEqual(fields.status.enum, ["streaming", "stopped", "failed"]);
  assert.ok(fields.versions && fields.feedback && fields.error);
  assert.ok(paths["/documents"].get.responses[200].content["application/json"].schema.items);
  // Asking again answers as asking does, and refuses as it does.
  for (const path of ["/chats/{id}/messages/{message_id}/edit", "/chats/{id}/regenerate"]) {
    const responses = Object.keys(paths[path].post.responses);
    assert.ok(["400", "409", "504"].every((status) => responses.includes(status)), path);
    assert.ok(paths[path].post.responses[200].content["application/x-ndjson"], path);
  }
});
