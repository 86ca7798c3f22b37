/**
 * Chat parameters: each component declares the ones it takes as a schema, and
 * a chat's parameters are checked strictly against the union of its
 * components' schemas.
 * @module
 */
import { z } from "zod";
import { excerpt, jsonExcerpt, SvcError } from "./errors.ts";
import type { PrepareProgressCallback } from "./progress.ts";
import { envVar } from "./requirements.ts";

/**
 * The chat parameters a component takes: name -> zod schema. A parameter with
 * a default (`z.int().default(500)`) may be left out; one without must be given.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import type { ParamSchema } from "@svc/svc";
 * const params: ParamSchema = { chunk_size: z.int().positive().default(500) };
 * ```
 */
export type ParamSchema = Readonly<Record<string, z.ZodType>>;

/** The parameters every component method receives, whatever it declares. */
export interface SpecialParams {
  /** The user the chat belongs to. */
  user: string;
  /** The chat's id. */
  chat_id: string;
  /** The chat's name. */
  chat_name: string;
}

/** A message of the chat's history, as components read it: a `Message`. */
export interface HistoryMessage {
  readonly role: "system" | "user" | "assistant";
  /** The whole text; read it only when `isComplete`. */
  readonly content: string;
  /** Whether the whole text is known (an answer that failed midway is not). */
  readonly isComplete: boolean;
}

/** What a component method receives: its declared parameters, the special ones, and a signal. */
export type ChatParams = SpecialParams & {
  /** Aborted when the answer is no longer wanted (the client went away). */
  signal: AbortSignal;
  /**
   * The chat's messages before this prompt, oldest first (`retrieve` and
   * `answer` get them): what a follow-up question refers to.
   */
  history?: readonly HistoryMessage[];
  /**
   * Asks the chat's assistant for a follow-up question worded to stand alone
   * (`Assistant.standaloneQuestion`), with `history` before it: `retrieve`
   * gets it, for retrieval to search for that question; `undefined` when the
   * assistant leaves the follow-up to retrieval's own rule.
   */
  standaloneQuestion?: (
    prompt: string,
    history: readonly HistoryMessage[],
  ) => Promise<string | undefined>;
  /** Told how far each document is while `store` runs, when someone watches. */
  progress?: PrepareProgressCallback;
  [name: string]: unknown;
};

/** The names of the special parameters. */
export const SPECIAL_PARAMS: readonly (keyof SpecialParams)[] = ["user", "chat_id", "chat_name"];

/** What is wrong with one parameter: its name, and a phrase such as `must be at least 8`. */
export interface ParamProblem {
  name: string;
  problem: string;
}

/**
 * A check over several parameters of one component, which a schema per
 * parameter cannot express (`chunk_overlap` below `chunk_size`). It gets the
 * component's parameters with defaults filled in, each valid on its own.
 *
 * @example
 * ```ts
 * import type { ParamProblem, ParamRule } from "@svc/svc";
 * function overlapBelowSize(params: Readonly<Record<string, unknown>>): ParamProblem | undefined {
 *   const { chunk_size, chunk_overlap } = params as Record<string, number>;
 *   if (chunk_overlap! < chunk_size!) return undefined;
 *   return { name: "chunk_overlap", problem: `must be less than chunk_size (${chunk_size})` };
 * }
 * const rules: ParamRule[] = [overlapBelowSize];
 * ```
 */
export type ParamRule = (params: Readonly<Record<string, unknown>>) => ParamProblem | undefined;

/** A component class as far as parameters go. */
export interface Parametrized {
  readonly name: string;
  readonly params: ParamSchema;
  /** Checks over several of its parameters. */
  readonly paramRules?: readonly ParamRule[];
}

/**
 * Checks `params` against the union of the components' schemas and returns,
 * for each component, its parameters with defaults filled in, plus the special
 * parameters, which `params` must hold.
 *
 * @throws {SvcError} 422 listing every unknown, missing and wrong-type parameter
 * by name, value and expected type, and every value that is not allowed (below
 * a minimum, refused by a rule) by name, value and what it must be
 */
export function validateParams(
  params: Readonly<Record<string, unknown>>,
  components: readonly Parametrized[],
): Map<Parametrized, Record<string, unknown>> {
  const union = unionOf(components);
  const unknown: string[] = [];
  const missing: string[] = [];
  const wrongType: string[] = [];
  const invalid: string[] = [];

  const special: Partial<SpecialParams> = {};
  for (const name of SPECIAL_PARAMS) {
    const value = params[name];
    if (typeof value === "string") special[name] = value;
    else if (value === undefined) missing.push(`- ${name}: string`);
    else wrongType.push(`- ${name}: string = ${show(value)}`);
  }
  for (const [name, value] of Object.entries(params)) {
    if (!union.has(name) && !(SPECIAL_PARAMS as string[]).includes(name)) {
      unknown.push(`- ${excerpt(name)}=${show(value)}`);
    }
  }
  for (const [name, schema] of union) {
    const value = params[name];
    if (value === undefined) {
      if (!components.every((c) => c.params[name]?.safeParse(undefined).success ?? true)) {
        missing.push(`- ${excerpt(name)}: ${typeName(schema)}`);
      }
    } else {
      const issue = components.map((c) => c.params[name]?.safeParse(value).error?.issues[0])
        .find((issue) => issue !== undefined);
      if (issue === undefined) continue;
      if (VALUE_ISSUES.has(issue.code)) {
        invalid.push(`- ${name} = ${show(value)}: ${issue.message}`);
      } else wrongType.push(`- ${name}: ${typeName(schema)} = ${show(value)}`);
    }
  }
  for (const component of components) {
    const own = ownParams(component, params);
    if (own === undefined) continue;
    for (const rule of component.paramRules ?? []) {
      const found = rule(own);
      if (found) invalid.push(`- ${found.name} = ${show(own[found.name])}: ${found.problem}`);
    }
  }

  const problems = unknown.length + missing.length + wrongType.length + invalid.length;
  if (problems > 0) {
    const sections = [
      [unknown, "These parameters are unknown:"],
      [missing, "These parameters are missing:"],
      [wrongType, "These parameters have the wrong type:"],
      [invalid, "These parameters have values that are not allowed:"],
    ] as const;
    const text = sections
      .filter(([lines]) => lines.length > 0)
      .map(([lines, heading]) => [heading, ...listed(lines)].join("\n"));
    const noun = problems === 1 ? "problem" : "problems";
    throw new SvcError(
      [`The chat parameters have ${problems} ${noun}:`, ...text].join("\n\n"),
      { status: 422 },
    );
  }

  return new Map(components.map((component) => [
    component,
    { ...ownParams(component, params), ...special },
  ]));
}

/**
 * A component's own parameters with defaults filled in, checked as
 * {@linkcode validateParams} checks them, for a method of the component that a
 * caller may give parameters no chat checked (the library used without `Rag`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { componentParams } from "./params.ts";
 * const component = { name: "Notes", params: { chunk_size: z.int().default(500) } };
 * assert.deepEqual(componentParams(component, { chat_id: "c" }), { chunk_size: 500 });
 * assert.throws(() => componentParams(component, { chunk_size: "big" }), { name: "SvcError" });
 * ```
 *
 * @throws {SvcError} 422 naming the parameters that are not valid, or the rule one breaks
 */
export function componentParams(
  component: Parametrized,
  params: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const parsed = objectSchema(component.params).safeParse(params);
  if (!parsed.success) {
    throw new SvcError(`The chat parameters are not valid: ${z.prettifyError(parsed.error)}`, {
      status: 422,
    });
  }
  const values = parsed.data as Record<string, unknown>;
  for (const rule of component.paramRules ?? []) {
    const found = rule(values);
    if (found) {
      throw new SvcError(`${found.name} ${found.problem}, not ${show(values[found.name])}`, {
        status: 422,
      });
    }
  }
  return values;
}

// The object schema of each component's parameters, with the schemas it was made of: made again
// only when a parameter's schema changes (a bound read anew), since making one costs many times
// what checking with it does.
const objectSchemas = new WeakMap<ParamSchema, { fields: z.ZodType[]; object: z.ZodType }>();

function objectSchema(params: ParamSchema): z.ZodType {
  const names = Object.keys(params);
  const fields = names.map((name) => params[name]!);
  const made = objectSchemas.get(params);
  if (made?.fields.length === fields.length && made.fields.every((f, i) => f === fields[i])) {
    return made.object;
  }
  const object = z.object(Object.fromEntries(names.map((name, i) => [name, fields[i]!])));
  objectSchemas.set(params, { fields, object });
  return object;
}

// Issues of a value of the right type that is out of bounds, as opposed to a wrong type.
const VALUE_ISSUES = new Set([
  "too_small",
  "too_big",
  "not_multiple_of",
  "invalid_value",
  "custom",
]);

/** The component's own parameters with defaults filled in; `undefined` when one is not valid. */
function ownParams(
  component: Parametrized,
  params: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  const own: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(component.params)) {
    const parsed = schema.safeParse(params[name]);
    if (!parsed.success) return undefined;
    own[name] = parsed.data;
  }
  return own;
}

/**
 * The JSON Schema of a component's parameters, as `GET /components` lists it:
 * `title` is the display name, `properties` the parameters with their defaults.
 */
export function paramsJsonSchema(
  title: string,
  params: ParamSchema,
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(params)) {
    properties[name] = { title: titleCase(name), ...fieldJsonSchema(schema) };
    if (!schema.safeParse(undefined).success) required.push(name);
  }
  return { title, type: "object", properties, required };
}

function unionOf(components: readonly Parametrized[]): Map<string, z.ZodType> {
  const union = new Map<string, z.ZodType>();
  const owners = new Map<string, string>();
  for (const component of components) {
    for (const [name, schema] of Object.entries(component.params)) {
      if ((SPECIAL_PARAMS as string[]).includes(name)) {
        throw new SvcError(
          `The component "${component.name}" declares the parameter "${name}", which is reserved`,
        );
      }
      const known = union.get(name);
      if (known && typeName(known) !== typeName(schema)) {
        throw new SvcError(
          `The components "${owners.get(name)}" and "${component.name}" declare the parameter ` +
            `"${name}" with different types: ${typeName(known)} and ${typeName(schema)}`,
        );
      }
      union.set(name, schema);
      owners.set(name, component.name);
    }
  }
  return union;
}

function fieldJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  return json;
}

function typeName(schema: z.ZodType): string {
  const type = fieldJsonSchema(schema).type;
  return typeof type === "string" ? type : "value";
}

/** The most problems a section of the message lists; the others are counted. */
const MAX_LISTED = 10;

function listed(lines: readonly string[]): string[] {
  if (lines.length <= MAX_LISTED) return [...lines];
  return [...lines.slice(0, MAX_LISTED), `- and ${lines.length - MAX_LISTED} more`];
}

/** A value as the message shows it: JSON, cut to an excerpt. */
function show(value: unknown): string {
  return value === undefined ? "undefined" : jsonExcerpt(value);
}

function titleCase(name: string): string {
  return name.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(" ");
}

/** Special parameters for a new chat: this system's user, a fresh id, a name with the time. */
export function defaultSpecialParams(): SpecialParams {
  const now = new Date();
  return {
    user: envVar("USER") ?? envVar("USERNAME") ?? "svc",
    chat_id: crypto.randomUUID(),
    chat_name: `Chat ${now.toLocaleDateString("en-US")} ${now.toLocaleTimeString("en-US")}`,
  };
}
