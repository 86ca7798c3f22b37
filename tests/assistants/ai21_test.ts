import assert from "node:assert/strict";
import { AI21 } from "../../components/assistants/ai21.ts";
import { ai21Fake, requestOf } from "./_providers.ts";

Deno.test("AI21 posts the chat to AI21 Studio's chat completions with the key as a bearer token", async () => {
  const { path, headers, body } = await requestOf(AI21, ai21Fake);
  assert.equal(path, "/studio/v1/chat/completions");
  assert.equal(headers.get("authorization"), "Bearer ai21-test");
  assert.equal(headers.get("content-type"), "application/json");
  const request = body as { max_tokens: number; messages: { role: string }[] };
  assert.equal(request.max_tokens, 64);
  assert.deepEqual(request.messages.map((message) => message.role), ["system", "user"]);
});

Deno.test("AI21 takes AI21_BASE_URL as a host or as the API's root", async () => {
  const roots = [
    (url: string) => url,
    (url: string) => `${url}/`,
    (url: string) => `${url}/studio/v1`,
  ];
  for (const root of roots) {
    const { path } = await requestOf(AI21, ai21Fake, (url) => ({ AI21_BASE_URL: root(url) }));
    assert.equal(path, "/studio/v1/chat/completions", root("<url>"));
  }
  const proxied = await requestOf(AI21, ai21Fake, (url) => ({ AI21_BASE_URL: `${url}/ai21/v1/` }));
  assert.equal(proxied.path, "/ai21/v1/chat/completions");
});
