import assert from "node:assert/strict";
import {
  readSwaggerUi,
  sha256,
  SWAGGER_UI_MODULE,
  swaggerUiModule,
} from "../../deploy/build_swagger_ui.ts";
import { SWAGGER_UI_ASSETS, SWAGGER_UI_VERSION } from "../../server/swagger_ui_assets.ts";

const STALE =
  "server/swagger_ui_assets.ts is stale: run `deno run -A deploy/build_swagger_ui.ts` " +
  "and commit it";

Deno.test("server/swagger_ui_assets.ts holds the files of the swagger-ui-dist that deploy/build_swagger_ui.ts imports", async () => {
  const installed = await readSwaggerUi();
  assert.equal(SWAGGER_UI_VERSION, installed.version, STALE);
  assert.deepEqual(
    SWAGGER_UI_ASSETS.map((asset) => asset.name),
    installed.files.map((file) => file.name),
    STALE,
  );
  for (const file of installed.files) {
    const asset = SWAGGER_UI_ASSETS.find((asset) => asset.name === file.name)!;
    assert.equal(asset.sha256, await sha256(file.bytes), STALE);
    const inflated = new Uint8Array(
      await new Response(
        new Blob([Uint8Array.fromBase64(asset.gzipBase64)]).stream()
          .pipeThrough(new DecompressionStream("gzip")),
      ).arrayBuffer(),
    );
    assert.equal(await sha256(inflated), asset.sha256, `${file.name} inflates to the file`);
  }
  const committed = await Deno.readTextFile(SWAGGER_UI_MODULE);
  assert.ok(committed === await swaggerUiModule(installed), STALE);
});
