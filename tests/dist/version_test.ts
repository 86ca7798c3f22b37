import assert from "node:assert/strict";
import { run } from "../../cli/mod.ts";
import { VERSION } from "../../components/version.ts";
import { createUiApp } from "../../server/ui_server.ts";
import { testApi } from "../server/api/_api.ts";
import { ROOT } from "./_graph.ts";

Deno.test("one version, in deno.json, is the one CHANGELOG.md describes first", async () => {
  const { version } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.equal(VERSION, version);
  assert.match(version, /^\d+\.\d+\.\d+(-[\w.]+)?$/, "a semantic version");
  const changelog = await Deno.readTextFile(`${ROOT}CHANGELOG.md`);
  const [, first] = /^## \[?(\d+\.\d+\.\d+[^\]\s]*)\]?/m.exec(changelog) ?? [];
  assert.equal(first, version, "CHANGELOG.md starts with the release of deno.json's version");
});

Deno.test("svc --version, GET / of the API and the UI's page report deno.json's version", async () => {
  let out = "";
  assert.equal(await run(["--version"], { out: (text) => out += text, err: () => {} }), 0);
  assert.equal(out, `svc ${VERSION}\n`);

  await using api = await testApi();
  assert.equal(await (await api.call("GET", "/")).json(), VERSION);
  const openapi = await (await api.call("GET", "/openapi.json")).json();
  assert.equal(openapi.info.version, VERSION);

  const page = await (await createUiApp({ apiUrl: "http://127.0.0.1:31476" }).request("/")).text();
  const settings = /<script id="svc-settings" type="application\/json">(.*?)<\/script>/s.exec(page);
  assert.equal(JSON.parse(settings![1]!).version, VERSION);
});
