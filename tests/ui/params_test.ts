import assert from "node:assert/strict";
import type { ComponentSchema } from "../../ui/api_types.ts";
import { initialValues, paramFields, parseParams } from "../../ui/params.ts";

const STORAGE: ComponentSchema = {
  title: "Svc/LibSQL",
  type: "object",
  properties: {
    chunk_size: { title: "Chunk Size", type: "integer", default: 500, exclusiveMinimum: 0 },
    ratio: { title: "Ratio", type: "number", default: 0.5, minimum: 0, maximum: 1 },
  },
  required: [],
};
const ASSISTANT: ComponentSchema = {
  title: "Acme/Model",
  properties: {
    max_new_tokens: { title: "Max New Tokens", type: "integer", default: 256 },
    chunk_size: { title: "Chunk Size", type: "integer", default: 500 },
    stream: { title: "Stream", type: "boolean", default: true },
    model: { title: "Model", type: "string" },
    mode: { title: "Mode", enum: ["fast", "good"], default: "fast" },
    extra: { title: "Extra", type: "object", default: { a: 1 } },
  },
  required: ["model"],
};

Deno.test("paramFields() lists each parameter of the chosen components once, typed from its schema", () => {
  const fields = paramFields([STORAGE, ASSISTANT]);
  assert.deepEqual(fields.map((f) => [f.name, f.kind]), [
    ["chunk_size", "integer"],
    ["ratio", "number"],
    ["max_new_tokens", "integer"],
    ["stream", "boolean"],
    ["model", "string"],
    ["mode", "choice"],
    ["extra", "json"],
  ]);
  const chunkSize = fields[0]!;
  assert.deepEqual(chunkSize.owners, ["Svc/LibSQL", "Acme/Model"]);
  assert.equal(chunkSize.minimum, 1, "an exclusive minimum of an integer is the next integer");
  assert.equal(chunkSize.default, 500);
  assert.equal(fields.find((f) => f.name === "model")!.required, true);
  assert.equal(fields.find((f) => f.name === "ratio")!.maximum, 1);
});

Deno.test("paramFields() of components without parameters is empty", () => {
  assert.deepEqual(
    paramFields([{ title: "Svc/DemoAssistant", properties: {} }, { title: "X" }]),
    [],
  );
});

Deno.test("parseParams() of the initial values gives the defaults, typed", () => {
  const fields = paramFields([STORAGE, ASSISTANT]);
  const { params, errors } = parseParams(fields, { ...initialValues(fields), model: "m1" });
  assert.deepEqual(errors, {});
  assert.deepEqual(params, {
    chunk_size: 500,
    ratio: 0.5,
    max_new_tokens: 256,
    stream: true,
    model: "m1",
    mode: "fast",
    extra: { a: 1 },
  });
});

Deno.test("parseParams() says what is wrong with each input, in words", () => {
  const fields = paramFields([STORAGE, ASSISTANT]);
  const { errors } = parseParams(fields, {
    ...initialValues(fields),
    chunk_size: "12.5",
    ratio: "2",
    max_new_tokens: "many",
    extra: "{",
  });
  assert.deepEqual(errors, {
    chunk_size: "Enter a whole number",
    ratio: "Must be at most 1",
    max_new_tokens: "Enter a number",
    extra: "Enter a JSON value",
  });
});

Deno.test("parseParams() leaves an emptied optional number to the default and requires the required", () => {
  const fields = paramFields([STORAGE, {
    title: "B",
    properties: { n: { type: "integer" } },
    required: ["n"],
  }]);
  const { params, errors } = parseParams(fields, { chunk_size: "", n: "" });
  assert.equal("chunk_size" in params, false);
  assert.deepEqual(errors, { n: "Enter a value" });
});
