import assert from "node:assert/strict";
import { z } from "zod";
import { SvcError } from "../../components/core/errors.ts";
import { componentParams, paramsJsonSchema, validateParams } from "../../components/core/params.ts";
import { writtenAsJson } from "./_json_written.ts";

const specials = { user: "ada", chat_id: "c1", chat_name: "Chat" };
const storage = {
  name: "Storage",
  params: { chunk_size: z.int().default(500), num_tokens: z.int().default(1024) },
};
const assistant = { name: "Assistant", params: { max_new_tokens: z.int().default(256) } };

Deno.test("validateParams() gives each component its own parameters with defaults", () => {
  const params = validateParams({ ...specials, chunk_size: 100 }, [storage, assistant]);
  assert.deepEqual(params.get(storage), { chunk_size: 100, num_tokens: 1024, ...specials });
  assert.deepEqual(params.get(assistant), { max_new_tokens: 256, ...specials });
});

Deno.test("validateParams() refuses a special parameter of the wrong type", () => {
  assert.throws(
    () => validateParams({ ...specials, user: 7 }, [storage]),
    (e) => e instanceof SvcError && e.message.includes("- user: string = 7"),
  );
});

Deno.test("validateParams() refuses components that disagree on a parameter's type", () => {
  const other = { name: "Other", params: { chunk_size: z.string().default("big") } };
  assert.throws(
    () => validateParams(specials, [storage, other]),
    /"Storage" and "Other" declare the parameter "chunk_size" with different types: integer and string/,
  );
});

Deno.test("validateParams() lets components with different defaults keep their own", () => {
  const other = { name: "Other", params: { chunk_size: z.int().default(200) } };
  const params = validateParams(specials, [storage, other]);
  assert.equal(params.get(storage)?.chunk_size, 500);
  assert.equal(params.get(other)?.chunk_size, 200);
});

Deno.test("validateParams() refuses a component that declares a special parameter", () => {
  const bad = { name: "Bad", params: { user: z.string() } };
  assert.throws(
    () => validateParams(specials, [bad]),
    /declares the parameter "user", which is reserved/,
  );
});

Deno.test("paramsJsonSchema() titles the schema and lists parameters with defaults", () => {
  assert.deepEqual(paramsJsonSchema("Chroma", storage.params), {
    title: "Chroma",
    type: "object",
    properties: {
      chunk_size: { title: "Chunk Size", type: "integer", default: 500 },
      num_tokens: { title: "Num Tokens", type: "integer", default: 1024 },
    },
    required: [],
  });
  assert.deepEqual(paramsJsonSchema("Typed", { flag: z.boolean() }).required, ["flag"]);
});

Deno.test("validateParams() names a value below a parameter's minimum with the bound", () => {
  const bounded = {
    name: "Bounded",
    params: { chunk_size: z.int().min(8, { error: "must be at least 8" }).default(500) },
  };
  assert.throws(
    () => validateParams({ ...specials, chunk_size: 1 }, [bounded]),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message === "The chat parameters have 1 problem:\n\n" +
          "These parameters have values that are not allowed:\n- chunk_size = 1: must be at least 8",
  );
  assert.equal(
    validateParams({ ...specials, chunk_size: 8 }, [bounded]).get(bounded)?.chunk_size,
    8,
  );
});

Deno.test("validateParams() checks a component's rules over several parameters, defaults included", () => {
  const ruled = {
    name: "Ruled",
    params: { size: z.int().default(500), overlap: z.int().default(250) },
    paramRules: [
      ({ size, overlap }: Readonly<Record<string, unknown>>) =>
        (overlap as number) < (size as number)
          ? undefined
          : { name: "overlap", problem: `must be less than size (${size})` },
    ],
  };
  assert.throws(
    () => validateParams({ ...specials, size: 100 }, [ruled, assistant]),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message.endsWith("- overlap = 250: must be less than size (100)"),
  );
  // A rule sees only values that are valid on their own: a wrong type is told once, as such.
  assert.throws(
    () => validateParams({ ...specials, size: "big" }, [ruled]),
    (e) => e instanceof SvcError && e.message.includes("1 problem") && !/overlap/.test(e.message),
  );
  assert.deepEqual(validateParams({ ...specials, overlap: 0 }, [ruled]).get(ruled), {
    size: 500,
    overlap: 0,
    ...specials,
  });
});

Deno.test("componentParams() gives a component's own parameters with defaults, and refuses what is not valid", () => {
  const ruled = {
    name: "Ruled",
    params: { size: z.int().default(500), overlap: z.int().default(250) },
    paramRules: [
      ({ size, overlap }: Readonly<Record<string, unknown>>) =>
        (overlap as number) < (size as number)
          ? undefined
          : { name: "overlap", problem: `must be less than size (${size})` },
    ],
  };
  assert.deepEqual(componentParams(ruled, { ...specials, max_new_tokens: 9, size: 300 }), {
    size: 300,
    overlap: 250,
  });
  assert.throws(
    () => componentParams(ruled, { ...specials, size: 100 }),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message === "overlap must be less than size (100), not 250",
  );
  assert.throws(
    () => componentParams(ruled, { size: "big" }),
    (e) =>
      e instanceof SvcError && e.status === 422 &&
      e.message.startsWith("The chat parameters are not valid: ") && /size/.test(e.message),
  );
});

Deno.test("componentParams() checks with a parameter's schema as its getter gives it now", () => {
  const schemas = new Map<number, z.ZodType>();
  let most = 10;
  const bounded = {
    name: "Bounded",
    params: {
      // As the storages' bounds read from the environment: the same schema while the bound is.
      get count() {
        if (!schemas.has(most)) schemas.set(most, z.int().max(most).default(1));
        return schemas.get(most)!;
      },
    },
  };
  assert.deepEqual(componentParams(bounded, { count: 8 }), { count: 8 });
  most = 5;
  assert.throws(() => componentParams(bounded, { count: 8 }), { name: "SvcError" });
  most = 10;
  assert.deepEqual(componentParams(bounded, { count: 8 }), { count: 8 });
});

Deno.test("validateParams() writes out excerpts of a value of 900 KB, not the value", () => {
  const written = writtenAsJson(() =>
    assert.throws(
      () => validateParams({ ...specials, chunk_size: "C".repeat(900_000) }, [storage]),
      /- chunk_size: integer = "C{99}…C{39}"/,
    )
  );
  assert.ok(written < 10_000, `${written} characters written as JSON`);
});

Deno.test("validateParams() quotes excerpts of long names and values, and counts what it leaves out", () => {
  const huge = "v".repeat(900_000);
  const params: Record<string, unknown> = { ...specials, chunk_size: huge, [huge]: 1 };
  for (let i = 0; i < 30; i++) params[`extra_${i}`] = i;
  assert.throws(
    () => validateParams(params, [storage]),
    (e) => {
      assert.ok(e instanceof SvcError);
      assert.ok(e.message.length < 3000, `${e.message.length} characters`);
      assert.match(e.message, /^The chat parameters have 32 problems:/);
      assert.match(e.message, /\n- and 21 more\n/);
      assert.ok(
        e.message.includes(`- chunk_size: integer = "${"v".repeat(99)}…${"v".repeat(39)}"`),
      );
      assert.ok(e.message.includes(`- ${"v".repeat(100)}…${"v".repeat(40)}=1`));
      return true;
    },
  );
});
