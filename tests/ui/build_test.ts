import assert from "node:assert/strict";
import { ASSETS_MODULE, assetsModule, buildUi, gzipSize, type UiBuild } from "../../ui/build.ts";
import { integration } from "../_tier.ts";

/** The most the page may load gzipped before anything is clicked: script, its imports, style. */
const FIRST_LOAD_BUDGET = 60 * 1024;

let built: Promise<UiBuild> | undefined;
/** One build for every test of this file: it takes a while. */
function build(): Promise<UiBuild> {
  return built ??= buildUi();
}

integration.test({
  name: "server/ui_assets.ts is the build of ui/ as it is (else run `deno task build:ui`)",
  // esbuild's service process belongs to the module, and buildUi() stops it.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { script: name, assets, ...rest } = await build();
    const expected = assetsModule({ script: name, assets, ...rest });
    const committed = await Deno.readTextFile(ASSETS_MODULE);
    assert.ok(
      committed === expected,
      "server/ui_assets.ts is stale: the UI in ui/ changed since it was built. " +
        "Run `deno task build:ui` and commit server/ui_assets.ts",
    );
    const script = assets.find((asset) => asset.name === name)!;
    assert.ok(!script.body.includes("zod"), "no zod in the browser bundle");
  },
});

integration.test({
  name: "the UI's first load (its script, the chunks that imports, its style) is under 60 KB " +
    "gzipped, and pdf.js and its worker are loaded only when a PDF is opened",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { assets, firstLoad, script, style } = await build();
    const body = (name: string) => assets.find((asset) => asset.name === name)!.body;
    assert.ok(firstLoad.includes(script) && firstLoad.includes(style));
    const sizes = await Promise.all(firstLoad.map((name) => gzipSize(body(name))));
    const total = sizes.reduce((sum, size) => sum + size, 0);
    const listed = firstLoad.map((name, index) => `${name} ${sizes[index]} B`).join(", ");
    assert.ok(
      total < FIRST_LOAD_BUDGET,
      `The first load is ${total} B gzipped (${listed}), over ${FIRST_LOAD_BUDGET} B: load ` +
        "more of the UI on demand (ui/lazy.tsx)",
    );
    // pdf.js holds its version as a string; only a chunk loaded on demand holds it.
    const imports = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)))
      .imports as Record<string, string>;
    const version = imports["pdfjs-dist"]!.split("@").at(-1)!;
    const withPdfJs = assets.filter((asset) => asset.body.includes(`"${version}"`));
    assert.ok(withPdfJs.length > 0, "pdf.js is in the build");
    for (const asset of withPdfJs) assert.ok(!firstLoad.includes(asset.name), asset.name);
    const worker = assets.find((asset) => /^pdf\.worker-\w+\.js$/.test(asset.name));
    assert.ok(worker, "pdf.js's worker is a file of the build, served by svc");
    assert.ok(
      assets.some((asset) => asset.body.includes(JSON.stringify(worker.name))),
      "the PDF view names the worker's file",
    );
  },
});
