/**
 * How long an answer may run on the server, and how often the text so far of
 * the answers being written is saved: environment variables with defaults.
 * @module
 */
import { envNumber } from "../components/core/env_number.ts";
import { DEFAULT_ANSWER_SAVE_INTERVAL, DEFAULT_ANSWER_TIMEOUT } from "./api/answer_runs.ts";
import type { Env } from "./settings.ts";

/** The answer limits of the REST API, in milliseconds. */
export interface AnswerLimits {
  /** How long an answer may run in all, whatever its assistant's own timeout. */
  answerTimeout: number;
  /** How often the text so far is saved, and stops asked on other replicas are read. */
  answerSaveInterval: number;
}

/**
 * The answer limits from the environment: `SVC_API_ANSWER_TIMEOUT` (seconds,
 * 600) and `SVC_API_ANSWER_SAVE_INTERVAL` (seconds, 1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerLimits } from "./answer_limits.ts";
 * const limits = answerLimits({ SVC_API_ANSWER_SAVE_INTERVAL: "0.5" });
 * assert.deepEqual(limits, { answerTimeout: 600_000, answerSaveInterval: 500 });
 * ```
 *
 * @throws {SvcError} naming the variable whose value is not a positive number of seconds
 */
export function answerLimits(env: Env): AnswerLimits {
  return {
    answerTimeout: envNumber("SVC_API_ANSWER_TIMEOUT", {
      fallback: DEFAULT_ANSWER_TIMEOUT,
      unit: "seconds",
      env,
    }) * 1000,
    answerSaveInterval: envNumber("SVC_API_ANSWER_SAVE_INTERVAL", {
      fallback: DEFAULT_ANSWER_SAVE_INTERVAL,
      unit: "seconds",
      env,
    }) * 1000,
  };
}
