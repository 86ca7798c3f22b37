/**
 * A warning for each `SVC_` environment variable that is set and that the
 * settings (`settings.ts`) do not list: a mistyped name would otherwise be
 * ignored in silence.
 * @module
 */
import { quote } from "../components/core/errors.ts";
import { closest } from "./closest.ts";
import { type Env, knownEnvVariables, readEnv } from "./settings.ts";

export { knownEnvVariables };

/**
 * A warning for each `SVC_` variable that is set but known to neither svc
 * nor its built-in components, with the known name it probably meant. It is
 * not an error: a component of your own may read a variable of its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unknownEnvWarnings } from "./config_env.ts";
 * const warnings = unknownEnvWarnings({ SVC_API_PROT: "8000", SVC_API_PORT: "8001", HOME: "/" });
 * assert(warnings.length === 1);
 * assert(warnings[0]!.startsWith('Unknown environment variable "SVC_API_PROT" (did you mean "SVC_API_PORT"?)'));
 * ```
 */
export function unknownEnvWarnings(env?: Env): string[] {
  const known = knownEnvVariables();
  return setNames(env)
    .filter((name) => name.startsWith("SVC_") && !known.includes(name))
    .sort()
    .map((name) => {
      const suggestion = closest(name, known);
      return `Unknown environment variable ${quote(name)}` +
        (suggestion ? ` (did you mean ${quote(suggestion)}?)` : "") +
        ": neither svc nor its built-in components read it";
    });
}

/** The names of the variables that are set. */
function setNames(env: Env = readEnv()): string[] {
  return Object.keys(env).filter((name) => env[name] !== undefined);
}
