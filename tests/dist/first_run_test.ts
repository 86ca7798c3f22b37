/**
 * The README's first command as a new user runs it: `deno task ui` in a
 * fresh copy of the repository, with an empty Deno cache. It downloads what
 * the demo needs and nothing else (LanceDB, Chroma and the provider SDKs load
 * only when configured), warns of nothing, and serves the UI and the API.
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { freePort, REPOSITORY, run, spawn, waitForUrl } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";

/** Copies the files a clone of this work tree has, less the tests and benchmarks. */
async function clone(to: string): Promise<void> {
  const { stdout } = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard"]);
  for (const path of stdout.trim().split("\n")) {
    if (/^(tests|bench)\//.test(path)) continue;
    await Deno.mkdir(join(to, dirname(path)), { recursive: true });
    await Deno.copyFile(join(REPOSITORY, path), join(to, path));
  }
}

Deno.test("the first `deno task ui` on an empty cache downloads under 60 packages and warns of nothing", async () => {
  await using dir = await tmpDir();
  const checkout = join(dir.path, "svc");
  await clone(checkout);
  const [apiPort, uiPort] = [freePort(), freePort()];
  await using child = spawn(Deno.execPath(), ["task", "ui", "--no-open-browser"], {
    cwd: checkout,
    env: {
      DENO_DIR: join(dir.path, "deno"),
      SVC_CONFIG: "",
      NO_COLOR: "1",
      SVC_API_PORT: String(apiPort),
      SVC_UI_PORT: String(uiPort),
    },
    deadline: 300_000,
  });
  await waitForUrl(`http://127.0.0.1:${apiPort}/health`, child);
  await waitForUrl(`http://127.0.0.1:${uiPort}/health`, child);
  const page = await fetch(`http://127.0.0.1:${uiPort}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>/);

  const ended = await child.stop();
  assert.equal(ended.code, 0, ended.stderr);
  const downloads = [...ended.stderr.matchAll(/^Download (\S+\.tgz)$/gm)].map((m) => m[1]!);
  assert.ok(downloads.length > 0, `it downloaded the demo's packages:\n${ended.stderr}`);
  assert.ok(downloads.length < 60, `${downloads.length} packages:\n${downloads.join("\n")}`);
  for (const optional of ["lancedb", "chromadb", "openai", "playwright", "esbuild", "sharp"]) {
    assert.ok(!downloads.some((url) => url.includes(optional)), `${optional} was downloaded`);
  }
  // Deno warns of nothing (no script to approve); svc's own warnings are the README's words.
  assert.doesNotMatch(ended.stderr, /^Warning|approve-scripts/im, ended.stderr);
  const readme = await Deno.readTextFile(join(REPOSITORY, "README.md"));
  const warnings = ended.stderr.split("\n").filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line)).filter((entry) => entry.level === "warn");
  assert.ok(warnings.length > 0, "the demo's sign-in warns that it is for demos only");
  for (const { message } of warnings) assert.ok(readme.includes(message), message);
  assert.equal(ended.stdout, `svc UI: http://127.0.0.1:${uiPort}\n`);
});
