import assert from "node:assert/strict";
import { svcCommand } from "../../cli/invocation.ts";

Deno.test("svcCommand() is svc in the compiled binary, whatever the environment", () => {
  assert.equal(svcCommand({ standalone: true, env: { npm_lifecycle_event: "npx" } }), "svc");
});

Deno.test("svcCommand() is deno task svc from a checkout", () => {
  assert.equal(svcCommand({ standalone: false, env: {} }), "deno task svc");
  assert.equal(svcCommand({ env: {} }), "deno task svc", "deno test is not a compiled binary");
});

Deno.test("svcCommand() runs Deno through npx again when npx ran it", () => {
  const env = { npm_lifecycle_event: "npx" };
  assert.equal(
    svcCommand({ standalone: false, env, denoVersion: "2.9.6" }),
    "npx -y deno@2.9.6 task svc",
  );
  assert.equal(svcCommand({ standalone: false, env }), `npx -y deno@${Deno.version.deno} task svc`);
});
