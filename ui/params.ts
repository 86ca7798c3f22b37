/**
 * Chat parameters in the new chat dialog, taken from the JSON Schemas that
 * `GET /components` gives for the chosen components, never hard-coded.
 * @module
 */
import type { ComponentSchema, ParamSchema } from "./api_types.ts";

/** How a parameter is entered. */
export type FieldKind = "integer" | "number" | "boolean" | "string" | "choice" | "json";

/** One parameter as the dialog shows it. */
export interface ParamField {
  name: string;
  title: string;
  kind: FieldKind;
  description?: string;
  default?: unknown;
  required: boolean;
  minimum?: number;
  maximum?: number;
  choices?: unknown[];
  /** The components that take it, by display name. */
  owners: string[];
}

/** What an input holds: text for the typed kinds, a flag for a boolean. */
export type FieldValue = string | boolean;

/**
 * The parameters of the chosen components, each once, in the order the
 * components declare them.
 *
 * @example
 * ```ts
 * import { paramFields } from "./params.ts";
 * const [field] = paramFields([{
 *   title: "Svc/Demo",
 *   properties: { chunk_size: { type: "integer", title: "Chunk Size", default: 500 } },
 * }]);
 * console.assert(field!.kind === "integer" && field!.default === 500);
 * ```
 */
export function paramFields(components: readonly ComponentSchema[]): ParamField[] {
  const fields = new Map<string, ParamField>();
  for (const component of components) {
    for (const [name, schema] of Object.entries(component.properties ?? {})) {
      const known = fields.get(name);
      if (known) {
        known.owners.push(component.title);
        continue;
      }
      fields.set(name, {
        name,
        title: schema.title ?? name,
        kind: kindOf(schema),
        description: schema.description,
        default: schema.default,
        required: (component.required ?? []).includes(name) && schema.default === undefined,
        ...bounds(schema),
        choices: schema.enum,
        owners: [component.title],
      });
    }
  }
  return [...fields.values()];
}

/** The inputs' starting values: the defaults. */
export function initialValues(fields: readonly ParamField[]): Record<string, FieldValue> {
  return Object.fromEntries(fields.map((field) => [field.name, toInput(field, field.default)]));
}

/** A value as an input holds it. */
export function toInput(field: ParamField, value: unknown): FieldValue {
  if (field.kind === "boolean") return value === true;
  if (value === undefined || value === null) return "";
  if (field.kind === "choice") return JSON.stringify(value);
  if (field.kind === "json") return JSON.stringify(value);
  return String(value);
}

/**
 * The chat `params` from the inputs, or what is wrong with each input, in
 * words. An empty input leaves its parameter to the component's default.
 *
 * @example
 * ```ts
 * import { paramFields, parseParams } from "./params.ts";
 * const fields = paramFields([{ title: "A", properties: { n: { type: "integer", minimum: 1 } } }]);
 * console.assert(parseParams(fields, { n: "3" }).params.n === 3);
 * console.assert(parseParams(fields, { n: "0" }).errors.n === "Must be at least 1");
 * ```
 */
export function parseParams(
  fields: readonly ParamField[],
  values: Readonly<Record<string, FieldValue>>,
): { params: Record<string, unknown>; errors: Record<string, string> } {
  const params: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const input = values[field.name] ?? toInput(field, field.default);
    const result = parseField(field, input);
    if ("error" in result) errors[field.name] = result.error;
    else if (result.value !== undefined) params[field.name] = result.value;
  }
  return { params, errors };
}

function parseField(field: ParamField, input: FieldValue): { value: unknown } | { error: string } {
  if (field.kind === "boolean") return { value: input === true };
  const text = String(input).trim();
  if (text === "" && field.kind !== "string") {
    return field.required ? { error: "Enter a value" } : { value: undefined };
  }
  switch (field.kind) {
    case "integer":
    case "number": {
      const value = Number(text);
      if (!Number.isFinite(value)) return { error: "Enter a number" };
      if (field.kind === "integer" && !Number.isInteger(value)) {
        return { error: "Enter a whole number" };
      }
      if (field.minimum !== undefined && value < field.minimum) {
        return { error: `Must be at least ${field.minimum}` };
      }
      if (field.maximum !== undefined && value > field.maximum) {
        return { error: `Must be at most ${field.maximum}` };
      }
      return { value };
    }
    case "choice":
    case "json":
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: "Enter a JSON value" };
      }
    default:
      return { value: String(input) };
  }
}

function kindOf(schema: ParamSchema): FieldKind {
  if (schema.enum) return "choice";
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== "null");
  switch (type) {
    case "integer":
    case "number":
    case "boolean":
    case "string":
      return type;
    default:
      return "json";
  }
}

function bounds(schema: ParamSchema): { minimum?: number; maximum?: number } {
  const step = schema.type === "integer" ? 1 : 0;
  const result: { minimum?: number; maximum?: number } = {};
  if (schema.minimum !== undefined) result.minimum = schema.minimum;
  else if (schema.exclusiveMinimum !== undefined && step) {
    result.minimum = schema.exclusiveMinimum + step;
  }
  if (schema.maximum !== undefined) result.maximum = schema.maximum;
  else if (schema.exclusiveMaximum !== undefined && step) {
    result.maximum = schema.exclusiveMaximum - step;
  }
  return result;
}
