/**
 * The advanced parameters of a new chat, one input per parameter of the
 * chosen components, made from their JSON Schemas.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { ComponentSchema } from "./api_types.ts";
import { type FieldValue, type ParamField, toInput } from "./params.ts";

/** Inputs grouped by component; a parameter two components share sits under the first. */
export function ParamInputs(props: {
  components: ComponentSchema[];
  fields: ParamField[];
  values: Record<string, FieldValue>;
  errors: Record<string, string>;
  onChange: (name: string, value: FieldValue) => void;
}): JSX.Element {
  return (
    <div class="param-groups">
      {props.components.map((component) => {
        const fields = props.fields.filter((field) => field.owners[0] === component.title);
        return (
          <fieldset class="param-group" key={component.title}>
            <legend>{component.title}</legend>
            {fields.length === 0
              ? (
                <p class="muted">
                  {Object.keys(component.properties ?? {}).length === 0
                    ? "Takes no parameters."
                    : "Its parameters are listed above."}
                </p>
              )
              : fields.map((field) => (
                <ParamInput
                  key={field.name}
                  field={field}
                  value={props.values[field.name] ?? toInput(field, field.default)}
                  error={props.errors[field.name]}
                  onChange={(value) => props.onChange(field.name, value)}
                />
              ))}
          </fieldset>
        );
      })}
    </div>
  );
}

function ParamInput(props: {
  field: ParamField;
  value: FieldValue;
  error: string | undefined;
  onChange: (value: FieldValue) => void;
}): JSX.Element {
  const { field } = props;
  const id = `param-${field.name}`;
  const hint = hintOf(field);
  // A field left empty takes its default back, and says so, rather than dropping it unseen.
  const [restored, setRestored] = useState(false);
  const described = [
    hint && `${id}-hint`,
    restored && `${id}-restored`,
    props.error && `${id}-error`,
  ].filter(Boolean).join(" ");
  const common = {
    id,
    name: field.name,
    "aria-describedby": described || undefined,
    "aria-invalid": props.error ? true : undefined,
  };

  let input: JSX.Element;
  if (field.kind === "boolean") {
    return (
      <div class="field checkbox-field">
        <input
          type="checkbox"
          {...common}
          checked={props.value === true}
          onChange={(event) => props.onChange(event.currentTarget.checked)}
        />
        <label for={id}>{field.title}</label>
        {hint && <p class="field-hint" id={`${id}-hint`}>{hint}</p>}
      </div>
    );
  } else if (field.kind === "choice") {
    input = (
      <select
        {...common}
        value={String(props.value)}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        {(field.choices ?? []).map((choice) => (
          <option key={JSON.stringify(choice)} value={JSON.stringify(choice)}>
            {String(choice)}
          </option>
        ))}
      </select>
    );
  } else {
    const onInput = (event: { currentTarget: HTMLInputElement }) => {
      setRestored(false);
      props.onChange(event.currentTarget.value);
    };
    const onBlur = (event: { currentTarget: HTMLInputElement }) => {
      if (event.currentTarget.value.trim() !== "" || field.default === undefined) return;
      if (field.kind === "string" && field.default === "") return;
      props.onChange(toInput(field, field.default));
      setRestored(true);
    };
    input = field.kind === "integer" || field.kind === "number"
      ? (
        <input
          {...common}
          type="number"
          inputMode={field.kind === "integer" ? "numeric" : "decimal"}
          step={field.kind === "integer" ? 1 : "any"}
          min={field.minimum}
          max={field.maximum}
          required={field.required}
          value={String(props.value)}
          onInput={onInput}
          onBlur={onBlur}
        />
      )
      : (
        <input
          {...common}
          type="text"
          value={String(props.value)}
          onInput={onInput}
          onBlur={onBlur}
        />
      );
  }
  return (
    <div class="field">
      <label for={id}>
        {field.title}
        {field.required && <span class="required" aria-hidden="true">*</span>}
      </label>
      {input}
      {hint && <p class="field-hint" id={`${id}-hint`}>{hint}</p>}
      {restored && (
        <p class="field-note" id={`${id}-restored`} role="status">
          Left empty: the default, {String(toInput(field, field.default))}, is used
        </p>
      )}
      {props.error && <p class="field-error" id={`${id}-error`}>{props.error}</p>}
    </div>
  );
}

/** The description, default and range of a parameter, in a line. */
function hintOf(field: ParamField): string {
  const parts: string[] = [];
  if (field.description) parts.push(field.description);
  if (field.default !== undefined && field.kind !== "boolean") {
    parts.push(`Default ${JSON.stringify(field.default)}`);
  }
  if (field.minimum !== undefined && field.maximum !== undefined) {
    parts.push(`from ${field.minimum} to ${field.maximum}`);
  } else if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`);
  else if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`);
  if (field.owners.length > 1) parts.push(`also used by ${field.owners.slice(1).join(", ")}`);
  return parts.join(" · ");
}
