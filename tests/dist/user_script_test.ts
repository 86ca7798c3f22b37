/**
 * A user's own script, as a user of the JSR package writes it: a deno.json
 * that imports `jsr:@svc/svc`, which `links` points at this checkout (Deno's
 * way to use a local copy of a JSR package: the package resolves its own
 * dependencies from its own deno.json, exactly as when it comes from JSR),
 * and `examples/serve_my_components.ts`, which defines its own source
 * storage and assistant and serves them through `@svc/svc/deploy`.
 * @module
 */
import assert from "node:assert/strict";
import { freePort, run } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { ROOT } from "./_graph.ts";
import { chatOnce, checkUiPages, login, serveUi, upload, userEnvironment } from "./_smoke.ts";
import { integration } from "../_tier.ts";

const EXAMPLE = `${ROOT}examples/serve_my_components.ts`;

const DOCUMENT = `Tomato soup

Simmer the tomatoes with a pinch of cardamom for twenty minutes.

Serve the soup hot, with bread.

Store leftovers in the fridge for two days.
`;

integration.test("a user's script serves its own source storage and assistant through @svc/svc/deploy", async () => {
  await using dir = await tmpDir();
  const folder = await Deno.realPath(dir.path);
  assert.ok(!folder.startsWith(ROOT), "the script is outside the checkout");
  const { name, version } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  await Deno.writeTextFile(
    `${folder}/deno.json`,
    JSON.stringify({ imports: { [name]: `jsr:${name}@^${version}` }, links: [ROOT] }, null, 2),
  );
  await Deno.copyFile(EXAMPLE, `${folder}/serve_my_components.ts`);
  // The user's one install step: it resolves the script's packages, and nothing after it
  // may reach the registry.
  const env = userEnvironment();
  const install = await run(
    Deno.execPath(),
    ["install", "--entrypoint", "serve_my_components.ts"],
    {
      cwd: folder,
      clearEnv: true,
      env,
    },
  );
  assert.equal(install.code, 0, install.stderr);
  // Type errors in the script's own files; JSR modules are remote to a user, and deno check
  // reports nothing in them, where a linked package is checked as if it were the user's.
  const check = await run(Deno.execPath(), ["check", "--cached-only", "serve_my_components.ts"], {
    cwd: folder,
    clearEnv: true,
    env,
  });
  const checked = check.stderr;
  const errors = [...checked.matchAll(/^\s+at (file:\/\/\S+)$/gm)].map((m) => m[1]!);
  assert.deepEqual(errors.filter((at) => !at.startsWith(`file://${ROOT}`)), [], checked);
  assert.ok(check.code === 0 || errors.length > 0, checked);

  const [apiPort, uiPort] = [freePort(), freePort()];
  await serveUi({
    args: ["run", "-A", "--cached-only", "serve_my_components.ts"],
    cwd: folder,
    env: { ...env, SVC_API_PORT: String(apiPort), SVC_UI_PORT: String(uiPort) },
    ports: { api: apiPort, ui: uiPort },
    async check({ api, ui }) {
      const headers = await login(api);

      const components = await (await fetch(`${api}/components`, { headers })).json();
      const titles = (list: { title: string }[]) => list.map((component) => component.title);
      assert.deepEqual(titles(components.source_storages), ["My/ParagraphStorage"]);
      assert.deepEqual(titles(components.assistants), [
        "My/QuotingAssistant",
        "Svc/DemoAssistant",
      ]);

      const document = await upload(api, headers, "soup.md", new TextEncoder().encode(DOCUMENT));
      const answer = await chatOnce(api, headers, {
        documents: [document],
        sourceStorage: "My/ParagraphStorage",
        assistant: "My/QuotingAssistant",
        prompt: "How long do the tomatoes simmer?",
      });
      assert.ok(answer.lines > 1, "the answer streamed in chunks");
      assert.match(
        answer.content,
        /^What the documents say about "How long do the tomatoes simmer\?":/,
      );
      assert.match(answer.content, /> Simmer the tomatoes with a pinch of cardamom/);
      assert.deepEqual(answer.sources.map((source) => source.content), [
        "Simmer the tomatoes with a pinch of cardamom for twenty minutes.",
        "Serve the soup hot, with bread.",
        "Store leftovers in the fridge for two days.",
      ]);
      assert.equal(answer.sources[0]!.document.name, "soup.md");

      await checkUiPages(ui, api, version);
      await Deno.stat(`${folder}/.svc/svc.db`); // the local root is next to the script
    },
  });
});

Deno.test("examples/serve_my_components.ts is the script the README shows", async () => {
  const docs = await Deno.readTextFile(`${ROOT}docs_dist.md`).catch(() =>
    Deno.readTextFile(`${ROOT}README.md`)
  );
  const example = await Deno.readTextFile(EXAMPLE);
  const body = example.slice(example.indexOf("import {"));
  assert.ok(docs.includes(body.trimEnd()), "the README shows examples/serve_my_components.ts");
});
