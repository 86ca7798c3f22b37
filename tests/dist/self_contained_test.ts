/**
 * `deno compile` cannot run here (it downloads its runtime), so this proves
 * what the binary needs in another way: it copies exactly what the binary
 * carries into an empty folder outside the checkout and runs svc from there.
 *
 * - The files: the module graph of `main.ts` and of each `--include`d module
 *   of `deploy/compile.ts`, as `deno info --json` lists them, plus `deno.json`
 *   and `deno.lock`, which `deno compile` resolves the graph with (deno.json
 *   is in the graph anyway: it holds the version).
 * - The npm packages are not copied: the binary carries them in the layout of
 *   Deno's npm cache (`--node-modules-dir=none`, `name/version/`), resolved
 *   through the same lock, so the copy runs on the same cache, read-only
 *   (`--node-modules-dir=none --cached-only --frozen`). Nothing of the
 *   checkout's `node_modules` is reachable. The cache also holds packages the
 *   binary leaves out (`--exclude-unused-npm` keeps those the graph imports),
 *   so the first test refuses the ways a module could reach one unseen by the
 *   graph: `createRequire(import.meta.url)`, `import.meta.resolve`, files
 *   beside modules.
 * - Reads are allowed in the temporary folder only (the copy, the
 *   configuration, the local root); Deno reads its npm cache without a
 *   permission, as the binary reads its own. A read of the checkout (an asset
 *   next to a module, `node_modules`) fails the run with a permission error.
 * @module
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { INCLUDES, NAMED_IMPORTS, taskV8Flags } from "../../deploy/compile.ts";
import { VERSION } from "../../components/version.ts";
import { FIXTURES, tmpDir } from "../test_utils.ts";
import { freePort, run } from "../_process.ts";
import { filesBesideModules, programGraph, ROOT } from "./_graph.ts";
import {
  chatOnce,
  checkApiPages,
  checkUiPages,
  login,
  serveUi,
  upload,
  userEnvironment,
} from "./_smoke.ts";
import { integration } from "../_tier.ts";

/** What the copy runs with: nothing of the network but loopback, no reads outside `folder`. */
function denoRun(folder: string): string[] {
  return [
    "run",
    `--config=${folder}/app/deno.json`,
    "--node-modules-dir=none",
    // The V8 flags the binary carries.
    ...taskV8Flags(),
    "--cached-only",
    "--frozen",
    "--no-prompt",
    `--allow-read=${folder}`,
    `--allow-write=${folder}/root`,
    "--allow-net=127.0.0.1",
    "--allow-env",
    // libSQL's native addon.
    "--allow-ffi",
    // The default local root (os.homedir) and libSQL's choice of its addon (process.report).
    "--allow-sys",
    `${folder}/app/main.ts`,
  ];
}

const DENIED = /NotCapable|PermissionDenied|Requires \w+ access/;

integration.test("the program's graph names every worker it starts and reads nothing beside its modules", async () => {
  const graph = await programGraph();
  const { targets, other } = await filesBesideModules(graph.files);
  assert.deepEqual(other, [], 'import.meta is only used as new URL("./file", import.meta.url)');
  const workers = targets.filter((target) => target.worker).map((target) => target.file);
  assert.deepEqual(
    [...new Set(workers)].sort(),
    INCLUDES.filter((path) => !NAMED_IMPORTS.includes(path)).sort(),
    "deploy/compile.ts INCLUDES lists exactly the named imports and the workers the program starts",
  );
  for (const target of targets) {
    assert.ok(graph.files.includes(target.file), `${target.from} reads ${target.file}`);
  }
  assert.ok(graph.files.includes("deno.json"), "the version comes from deno.json in the graph");
  assert.ok(!graph.files.some((file) => file.startsWith("tests/")), "no test file in the binary");
  assert.ok(!graph.files.some((file) => file.startsWith("ui/")), "the UI only as its bundle");
  const buildOnly = /^(esbuild|playwright-core|preact|marked|dompurify|swagger-ui-dist)@/;
  assert.deepEqual(
    graph.npmPackages.filter((id) => buildOnly.test(id)),
    [],
    "nothing built at run time",
  );
});

integration.test({
  name: "svc runs from a copy of its module graph alone: API, UI and docs, reading nothing else",
  async fn() {
    await using dir = await tmpDir();
    const folder = await Deno.realPath(dir.path);
    assert.ok(!folder.startsWith(ROOT), "the copy is outside the checkout");
    const graph = await programGraph();
    for (const file of new Set([...graph.files, "deno.json", "deno.lock"])) {
      await Deno.mkdir(dirname(`${folder}/app/${file}`), { recursive: true });
      await Deno.copyFile(`${ROOT}${file}`, `${folder}/app/${file}`);
    }
    for (const sub of ["root", "config", "cwd"]) await Deno.mkdir(`${folder}/${sub}`);

    const version = await run(Deno.execPath(), [...denoRun(folder), "--version"], {
      cwd: `${folder}/cwd`,
      clearEnv: true,
      env: userEnvironment(),
    });
    assert.equal(version.stdout, `svc ${VERSION}\n`, version.stderr);

    const [apiPort, uiPort] = [freePort(), freePort()];
    const config = `${folder}/config/svc.toml`;
    await Deno.writeTextFile(
      config,
      [
        `local_root = "${folder}/root"`,
        // LibSQL parses and embeds in a worker: the included module must run from the copy.
        `source_storages = ["svc.source_storages.SvcDemoSourceStorage", "svc.source_storages.LibSQL"]`,
        `[api]\nport = ${apiPort}\n[ui]\nport = ${uiPort}\n`,
      ].join("\n"),
    );
    await serveUi({
      args: [...denoRun(folder), "ui", "--no-open-browser", "-c", config],
      cwd: `${folder}/cwd`,
      // None of the caller's SVC_ variables.
      env: userEnvironment(),
      ports: { api: apiPort, ui: uiPort },
      async check({ api, ui }) {
        const headers = await login(api);
        const documents = [
          await upload(api, headers, "report.pdf", await Deno.readFile(`${FIXTURES}report.pdf`)),
          await upload(api, headers, "notes.docx", await Deno.readFile(`${FIXTURES}notes.docx`)),
          await upload(api, headers, "slides.pptx", await Deno.readFile(`${FIXTURES}slides.pptx`)),
        ];
        const answer = await chatOnce(api, headers, {
          documents,
          sourceStorage: "Svc/DemoSourceStorage",
          assistant: "Svc/DemoAssistant",
          prompt: "What is the secret ingredient?",
        });
        assert.ok(answer.content.length > 0, "the answer has text");
        assert.deepEqual(
          answer.sources.map((source) => source.document.name).sort(),
          ["notes.docx", "report.pdf", "slides.pptx"],
        );
        assert.ok(answer.sources.every((source) => source.content.length > 0), "sources have text");
        const indexed = await chatOnce(api, headers, {
          documents,
          sourceStorage: "LibSQL",
          assistant: "Svc/DemoAssistant",
          prompt: "What is the secret ingredient?",
        });
        assert.ok(indexed.sources.length > 0, "LibSQL retrieves sources, indexed by its worker");

        await checkApiPages(api, VERSION);
        await checkUiPages(ui, api, VERSION);
      },
      ended(ended) {
        assert.doesNotMatch(ended.stderr, DENIED, `an access outside the copy:\n${ended.stderr}`);
      },
    });
  },
});
