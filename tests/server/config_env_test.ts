import assert from "node:assert/strict";
import { unknownEnvWarnings } from "../../server/config_env.ts";
import { knownEnvVariables } from "../../server/settings.ts";

Deno.test("unknownEnvWarnings() names an unknown SVC_ variable and the known one it resembles", () => {
  assert.deepEqual(unknownEnvWarnings({ SVC_API_PROT: "8000", SVC_OPENAI_MODLE: "gpt-4.1" }), [
    'Unknown environment variable "SVC_API_PROT" (did you mean "SVC_API_PORT"?): ' +
    "neither svc nor its built-in components read it",
    'Unknown environment variable "SVC_OPENAI_MODLE" (did you mean "SVC_OPENAI_MODEL"?): ' +
    "neither svc nor its built-in components read it",
  ]);
  assert.deepEqual(unknownEnvWarnings({ SVC_MY_COMPONENT_URL: "http://x" }), [
    'Unknown environment variable "SVC_MY_COMPONENT_URL": ' +
    "neither svc nor its built-in components read it",
  ]);
});

Deno.test("unknownEnvWarnings() says nothing of known, unset or other variables", () => {
  const env = Object.fromEntries(knownEnvVariables().map((name) => [name, "1"]));
  assert.deepEqual(
    unknownEnvWarnings({ ...env, SVC_NOT_SET: undefined, OPENAI_API_KEY: "k", svc_port: "1" }),
    [],
  );
});
