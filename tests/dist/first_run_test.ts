/**
 * The README's first command as a new user runs it: `deno task ui` in a
 * fresh copy of the repository, with an empty Deno cache. It downloads what
 * the embedded defaults need and nothing else (LanceDB, Chroma and the
 * provider SDKs load only when configured), warns of nothing, serves the UI
 * and the API, and answers from the user's own PDF with the components it
 * offers first; `svc check` afterwards downloads nothing, and the copy's
 * tracked files stay as they were.
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { freePort, REPOSITORY, run, spawn, waitForUrl } from "../_process.ts";
import { FIXTURES, tmpDir } from "../test_utils.ts";
import { chatOnce, login, upload, userEnvironment } from "./_smoke.ts";
import { integration } from "../_tier.ts";

const GUIDE = join(FIXTURES, "labelled", "usrguide.pdf");

/** Copies the files a clone of this work tree has, less the tests and benchmarks. */
async function clone(to: string): Promise<void> {
  const { stdout } = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard"]);
  for (const path of stdout.trim().split("\n")) {
    if (/^(tests|bench)\//.test(path)) continue;
    await Deno.mkdir(join(to, dirname(path)), { recursive: true });
    await Deno.copyFile(join(REPOSITORY, path), join(to, path));
  }
}

integration.test("the first `deno task ui` on an empty cache answers from the user's PDF and changes no file", async () => {
  await using dir = await tmpDir();
  const checkout = join(dir.path, "svc");
  await clone(checkout);
  const git = (...args: string[]) => run("git", ["-C", checkout, ...args]);
  await git("init", "-q");
  await git("add", "-A");
  await git("-c", "user.name=svc", "-c", "user.email=svc@example.com", "commit", "-qm", "clone");
  const [apiPort, uiPort] = [freePort(), freePort()];
  const env = {
    ...userEnvironment(),
    DENO_DIR: join(dir.path, "deno"),
    SVC_API_PORT: String(apiPort),
    SVC_UI_PORT: String(uiPort),
  };
  // Stopped by SIGTERM whatever happens, which deno task passes on to svc: a SIGKILL would end
  // the task alone and leave svc holding the output this test reads to its end.
  const child = spawn(Deno.execPath(), ["task", "ui", "--no-open-browser"], {
    cwd: checkout,
    clearEnv: true,
    env,
    deadline: 300_000,
  });
  let ended;
  try {
    const api = `http://127.0.0.1:${apiPort}`;
    await waitForUrl(`${api}/health`, child);
    await waitForUrl(`http://127.0.0.1:${uiPort}/health`, child);
    const page = await fetch(`http://127.0.0.1:${uiPort}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>/);

    // A chat with the components a new user is offered first answers from their own document:
    // a sentence of the page that answers, marked with a source on that page.
    const headers = await login(api);
    const components = await (await fetch(`${api}/components`, { headers })).json();
    const guide = await upload(api, headers, "usrguide.pdf", await Deno.readFile(GUIDE));
    const answer = await chatOnce(api, headers, {
      documents: [guide],
      sourceStorage: components.source_storages[0].title,
      assistant: components.assistants[0].title,
      prompt: "Which argument type letter reads an argument verbatim, between two identical " +
        "characters?",
    });
    const quoted = /a v-type argument is read between two identical characters[^[]*\[(\d+)\]/
      .exec(answer.content);
    assert.ok(quoted, answer.content);
    assert.equal(answer.sources[Number(quoted[1]) - 1]?.location, "3");
  } finally {
    ended = await child.stop();
  }
  assert.equal(ended.code, 0, ended.stderr);
  const downloads = [...ended.stderr.matchAll(/^Download (\S+\.tgz)$/gm)].map((m) => m[1]!);
  assert.ok(downloads.length > 0, `it downloaded the defaults' packages:\n${ended.stderr}`);
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

  // svc check afterwards needs nothing more, and no tracked file changed.
  const check = await run(Deno.execPath(), ["task", "svc", "check"], {
    cwd: checkout,
    clearEnv: true,
    env,
  });
  assert.equal(check.code, 0, check.stderr);
  assert.doesNotMatch(check.stderr, /^Download /m);
  assert.equal((await git("status", "--porcelain")).stdout, "");
});
