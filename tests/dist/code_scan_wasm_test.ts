import assert from "node:assert/strict";
import {
  CODE_SCAN_MODULE,
  CODE_SCAN_WAT,
  codeScanModule,
  compileWat,
} from "../../deploy/build_wasm.ts";

Deno.test("components/retrieval/vectors/code_scan_wasm.ts is the build of code_scan.wat (else run `deno task build:wasm`)", async () => {
  const bytes = await compileWat(await Deno.readTextFile(CODE_SCAN_WAT));
  assert.equal(
    await Deno.readTextFile(CODE_SCAN_MODULE),
    codeScanModule(bytes),
    "code_scan_wasm.ts is stale: run `deno task build:wasm` and commit it",
  );
});
