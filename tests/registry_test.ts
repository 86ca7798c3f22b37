import assert from "node:assert/strict";
import { Assistant, SourceStorage } from "../components/core/component.ts";
import { LocalDocument } from "../components/core/document.ts";
import { BUILTINS, loadClass } from "../components/registry.ts";
import * as assistants from "../components/assistants/mod.ts";
import * as sourceStorages from "../components/source_storages/mod.ts";
import { tmpDir, writeFile } from "./test_utils.ts";

Deno.test("the registry holds every exported component under its class path", () => {
  const families = [
    ["svc.source_storages", sourceStorages, SourceStorage],
    ["svc.assistants", assistants, Assistant],
  ] as const;
  for (const [prefix, exports, family] of families) {
    const components = Object.entries(exports).filter(([, value]) =>
      typeof value === "function" && value.prototype instanceof family
    );
    assert.ok(components.length > 0, `${prefix} exports components`);
    for (const [name, component] of components) {
      assert.equal(BUILTINS[`${prefix}.${name}`], component, `${prefix}.${name} is registered`);
    }
  }
  assert.equal(BUILTINS["svc.core.LocalDocument"], LocalDocument);
});

Deno.test("loadClass() finds built-ins by class path", async () => {
  assert.equal(
    await loadClass("svc.assistants.SvcDemoAssistant"),
    assistants.SvcDemoAssistant,
  );
});

Deno.test("loadClass() refuses an unknown class path and lists the known ones", async () => {
  await assert.rejects(
    loadClass("svc.assistants.Gpt5"),
    /Unknown class path "svc\.assistants\.Gpt5"; the built-in ones are .*svc\.assistants\.SvcDemoAssistant/,
  );
});

Deno.test("loadClass() imports a user's module, relative to a base folder", async () => {
  await using dir = await tmpDir();
  await writeFile(dir.path, "mine.ts", "export class Mine {}");
  const loaded = await loadClass("./mine.ts#Mine", { base: dir.path }) as { name: string };
  assert.equal(loaded.name, "Mine");
  const absolute = await loadClass(`file://${dir.path}/mine.ts#Mine`) as { name: string };
  assert.equal(absolute, loaded);
});

Deno.test("loadClass() says why a user's module cannot be loaded", async () => {
  await using dir = await tmpDir();
  await assert.rejects(
    loadClass("./absent.ts#X", { base: dir.path }),
    /^SvcError: Cannot load "\.\/absent\.ts#X": /,
  );
});
