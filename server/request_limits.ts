/**
 * The limits that keep one request, or a few clients, from holding the
 * server: how long a body may stall, and how many uploads run at once. Each
 * is an environment variable with a default.
 * @module
 */
import { quote, SvcError } from "../components/core/errors.ts";
import { envVar } from "../components/core/requirements.ts";
import { DEFAULT_BODY_TIMEOUT } from "./api/body_timeout.ts";
import { DEFAULT_MAX_UPLOADS, DEFAULT_MAX_UPLOADS_PER_USER } from "./api/upload_slots.ts";

/** The request limits of the REST API. */
export interface RequestLimits {
  /** How long a request body may send nothing before it is cut with a 408, in milliseconds. */
  bodyTimeout: number;
  /** How many uploads may run at once, all users together. */
  maxUploads: number;
  /** How many uploads one user may run at once. */
  maxUploadsPerUser: number;
}

/**
 * The request limits from the environment: `SVC_API_BODY_TIMEOUT` (seconds,
 * 30), `SVC_API_MAX_UPLOADS` (32) and `SVC_API_MAX_UPLOADS_PER_USER` (8).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestLimits } from "./request_limits.ts";
 * const limits = requestLimits({ SVC_API_BODY_TIMEOUT: "2.5" });
 * assert.equal(limits.bodyTimeout, 2500);
 * assert.equal(limits.maxUploadsPerUser, 8);
 * ```
 *
 * @throws {SvcError} naming the variable whose value is not a positive number
 */
export function requestLimits(env?: Record<string, string | undefined>): RequestLimits {
  const read = (name: string) => env ? env[name] : envVar(name);
  return {
    bodyTimeout: positive(read, "SVC_API_BODY_TIMEOUT", DEFAULT_BODY_TIMEOUT, "seconds") * 1000,
    maxUploads: positive(read, "SVC_API_MAX_UPLOADS", DEFAULT_MAX_UPLOADS, "uploads"),
    maxUploadsPerUser: positive(
      read,
      "SVC_API_MAX_UPLOADS_PER_USER",
      DEFAULT_MAX_UPLOADS_PER_USER,
      "uploads",
    ),
  };
}

function positive(
  read: (name: string) => string | undefined,
  name: string,
  fallback: number,
  unit: "seconds" | "uploads",
): number {
  const value = read(name)?.trim();
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  const valid = unit === "seconds"
    ? Number.isFinite(number) && number > 0
    : Number.isSafeInteger(number) && number > 0;
  if (valid) return number;
  throw new SvcError(
    `${name} must be a positive ${unit === "seconds" ? "number of seconds" : "whole number"}, ` +
      `not ${quote(value)}`,
  );
}
