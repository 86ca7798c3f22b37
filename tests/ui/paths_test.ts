import assert from "node:assert/strict";
import { browserApiUrl, loginUrl, openIdConnectLoginUrl, safeNext } from "../../ui/paths.ts";

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

Deno.test("loginUrl() carries the page to come back to, but for the chat list", () => {
  assert.equal(loginUrl(undefined, "/"), "/auth/");
  assert.equal(loginUrl(undefined, "/?chat=abc"), "/auth/?next=%2F%3Fchat%3Dabc");
  assert.equal(loginUrl("expired", "/?chat=abc"), "/auth/?reason=expired&next=%2F%3Fchat%3Dabc");
});

Deno.test("safeNext() keeps a path of this UI and nothing that leaves it", () => {
  assert.equal(safeNext("/?chat=abc"), "/?chat=abc");
  for (const away of ["//evil.example/", "/\\evil.example", "https://evil.example/", "", null]) {
    assert.equal(safeNext(away), "/", String(away));
  }
});

Deno.test("openIdConnectLoginUrl() comes back to the login page with the page and the tab's mark", () => {
  const url = new URL(
    openIdConnectLoginUrl("http://api.test/svc", "http://ui.test", {
      next: "/?chat=a",
      signIn: "m",
    }),
  );
  assert.equal(`${url.origin}${url.pathname}`, "http://api.test/svc/auth/oidc/login");
  assert.equal(
    url.searchParams.get("return_to"),
    "http://ui.test/auth/?next=%2F%3Fchat%3Da&signin=m",
  );
});
