import assert from "node:assert/strict";
import { ASSETS_MODULE, assetsModule, buildUi } from "../../ui/build.ts";

Deno.test({
  name: "server/ui_assets.ts is the build of ui/ as it is (else run `deno task build:ui`)",
  // esbuild's service process belongs to the module, and buildUi() stops it.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const build = await buildUi();
    const expected = assetsModule(build);
    const committed = await Deno.readTextFile(ASSETS_MODULE);
    assert.ok(
      committed === expected,
      "server/ui_assets.ts is stale: the UI in ui/ changed since it was built. " +
        "Run `deno task build:ui` and commit server/ui_assets.ts",
    );
    const script = build.assets.find((asset) => asset.name === build.script)!;
    assert.ok(!script.body.includes("zod"), "no zod in the browser bundle");
  },
});
