import assert from "node:assert/strict";
import { ASSETS_PATH, createUiApp } from "../../server/ui_server.ts";
import { UI_ASSETS, UI_ENTRY } from "../../server/ui_assets.ts";

const app = createUiApp({
  apiUrl: "http://127.0.0.1:31476",
  demoAuthentication: { sharedPassword: false },
});

function settingsOf(html: string): Record<string, unknown> {
  const match = /<script id="svc-settings" type="application\/json">(.*?)<\/script>/.exec(html);
  assert.ok(match, "the page carries its settings");
  return JSON.parse(match[1]!);
}

Deno.test("the UI server serves the page at /, /auth/ and /logout/, never cached, with the API's address", async () => {
  for (const path of ["/", "/auth/", "/logout/"]) {
    const response = await app.request(path);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("cache-control"), "no-cache");
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:31476/);
    assert.match(csp, /script-src 'self'/);
    const html = await response.text();
    assert.deepEqual(settingsOf(html), {
      apiUrl: "http://127.0.0.1:31476",
      version: settingsOf(html).version,
      demoAuthentication: { sharedPassword: false },
      openIdConnect: null,
      trustedProxy: false,
    });
    assert.ok(html.includes(`<script type="module" src="${ASSETS_PATH}${UI_ENTRY.script}">`));
    assert.ok(html.includes(`<link rel="stylesheet" href="${ASSETS_PATH}${UI_ENTRY.style}">`));
    assert.match(html, /<noscript>/);
  }
});

Deno.test("the UI server redirects /auth and /logout to their trailing-slash pages, keeping the query", async () => {
  for (const path of ["/auth", "/logout"]) {
    const response = await app.request(`${path}?reason=expired`);
    assert.equal(response.status, 308);
    assert.equal(response.headers.get("location"), `${path}/?reason=expired`);
  }
});

Deno.test("the UI server answers /health", async () => {
  const response = await app.request("/health");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok" });
});

Deno.test("the UI server serves each hashed asset for good, gzipped when asked", async () => {
  // The entry script, the style sheet, the chunks loaded on demand, and pdf.js's worker.
  const names = UI_ASSETS.map((asset) => asset.name);
  assert.ok(names.includes(UI_ENTRY.script) && names.includes(UI_ENTRY.style));
  assert.ok(names.some((name) => /^chunk-[A-Z0-9]+\.js$/.test(name)), "chunks");
  assert.ok(names.some((name) => /^pdf\.worker-[A-Z0-9]+\.js$/.test(name)), "the worker");
  for (const asset of UI_ASSETS) {
    const response = await app.request(`${ASSETS_PATH}${asset.name}`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), asset.contentType);
    assert.equal(response.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(await response.text(), asset.body);

    const zipped = await app.request(`${ASSETS_PATH}${asset.name}`, {
      headers: { "accept-encoding": "gzip, deflate" },
    });
    assert.equal(zipped.headers.get("content-encoding"), "gzip");
    const body = zipped.body!.pipeThrough(new DecompressionStream("gzip"));
    assert.equal(await new Response(body).text(), asset.body);
  }
  assert.match(UI_ENTRY.script, /^app-[A-Z0-9]+\.js$/);
  assert.match(UI_ENTRY.style, /^style-[A-Z0-9]+\.css$/);
});

Deno.test("the UI server answers 404 for an unknown asset or page", async () => {
  const asset = await app.request(`${ASSETS_PATH}app-OLD.js`);
  assert.equal(asset.status, 404);
  assert.match(await asset.text(), /no asset app-OLD\.js/);
  const page = await app.request("/chats/<script>");
  assert.equal(page.status, 404);
  const html = await page.text();
  assert.ok(!html.includes("<script>"), "the path is escaped");
});

Deno.test("the UI server's page says nothing of a demo rule for another authentication", async () => {
  const other = createUiApp({ apiUrl: "https://svc.example/api" });
  const html = await (await other.request("/")).text();
  assert.equal(settingsOf(html).demoAuthentication, null);
});

Deno.test("the UI server's page names the OpenID provider, for its login link", async () => {
  const oidc = createUiApp({ apiUrl: "https://svc.example/api", openIdConnect: { name: "Acme" } });
  const html = await (await oidc.request("/auth/")).text();
  assert.deepEqual(settingsOf(html).openIdConnect, { name: "Acme" });
  assert.equal(settingsOf(html).demoAuthentication, null);
});

Deno.test("the UI server's page cannot be broken out of by its settings", async () => {
  const hostile = createUiApp({ apiUrl: "http://x/</script><script>alert(1)</script>" });
  const html = await (await hostile.request("/")).text();
  assert.equal(html.match(/<\/script>/g)?.length, 2, "only the page's own two script ends");
  assert.equal(settingsOf(html).apiUrl, "http://x/</script><script>alert(1)</script>");
});

Deno.test("the UI server lets the page reach an API bound to every interface on any host", async () => {
  const open = createUiApp({ apiUrl: "http://0.0.0.0:31476" });
  const csp = (await open.request("/")).headers.get("content-security-policy") ?? "";
  assert.match(csp, /connect-src 'self' \*/);
});
