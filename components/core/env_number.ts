/**
 * Positive numbers from environment variables, read the same way by every
 * setting: unset or blank takes the default, anything else must be a positive
 * number of the setting's kind, or svc refuses it with a sentence naming the
 * variable.
 * @module
 */
import { quote, SvcError } from "./errors.ts";
import { envVar } from "./requirements.ts";

/** What a setting counts: whole things, seconds (fractions allowed) or bytes. */
export type EnvNumberUnit = "count" | "seconds" | "bytes";

/** Options of {@linkcode envNumber}. */
export interface EnvNumberOptions {
  /** The value when the variable is unset or blank. */
  fallback: number;
  /** @default {"count"} */
  unit?: EnvNumberUnit;
  /**
   * Where the variable is read.
   * @default {the process's environment}
   */
  env?: Readonly<Record<string, string | undefined>>;
}

const NOUNS: Readonly<Record<EnvNumberUnit, string>> = {
  count: "whole number",
  seconds: "number of seconds",
  bytes: "number of bytes",
};

/**
 * The positive number an environment variable holds, or the fallback.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envNumber } from "./env_number.ts";
 * const env = { SVC_API_BODY_TIMEOUT: "2.5", SVC_API_MAX_UPLOADS: " " };
 * assert.equal(envNumber("SVC_API_BODY_TIMEOUT", { fallback: 30, unit: "seconds", env }), 2.5);
 * assert.equal(envNumber("SVC_API_MAX_UPLOADS", { fallback: 32, env }), 32);
 * assert.throws(
 *   () => envNumber("SVC_API_BODY_TIMEOUT", { fallback: 30, env }),
 *   { message: 'SVC_API_BODY_TIMEOUT must be a positive whole number, not "2.5"' },
 * );
 * ```
 *
 * @throws {SvcError} naming the variable when its value is not a positive
 * number of the unit (a whole one unless the unit is seconds)
 */
export function envNumber(name: string, options: EnvNumberOptions): number {
  const { unit = "count", env } = options;
  const value = (env ? env[name] : envVar(name))?.trim();
  if (value === undefined || value === "") return options.fallback;
  const number = Number(value);
  const valid = number > 0 &&
    (unit === "seconds" ? Number.isFinite(number) : Number.isSafeInteger(number));
  if (valid) return number;
  throw new SvcError(`${name} must be a positive ${NOUNS[unit]}, not ${quote(value)}`);
}
