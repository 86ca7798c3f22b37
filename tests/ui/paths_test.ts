import assert from "node:assert/strict";
import { browserApiUrl, loginUrl } from "../../ui/paths.ts";

Deno.test("browserApiUrl() reaches an API bound to every interface on the page's host", () => {
  assert.equal(browserApiUrl("http://0.0.0.0:31476", "10.0.0.5"), "http://10.0.0.5:31476");
  assert.equal(browserApiUrl("http://0.0.0.0:31476/svc", "host"), "http://host:31476/svc");
  assert.equal(browserApiUrl("http://127.0.0.1:31476", "host"), "http://127.0.0.1:31476");
  assert.equal(browserApiUrl("not a url", "host"), "not a url");
});

Deno.test("loginUrl() carries the reason", () => {
  assert.equal(loginUrl(), "/auth/");
  assert.equal(loginUrl("expired"), "/auth/?reason=expired");
});
