/**
 * The limits that keep one request, or a few clients, from holding the
 * server: how long a body may stall, the pace an upload must keep, and how
 * many uploads run at once. Each is an environment variable with a default.
 * @module
 */
import { envNumber } from "../components/core/env_number.ts";
import type { Env } from "./settings.ts";
import { DEFAULT_BODY_TIMEOUT } from "./api/body_timeout.ts";
import { DEFAULT_MAX_UPLOADS, DEFAULT_MAX_UPLOADS_PER_USER } from "./api/upload_slots.ts";
import {
  DEFAULT_UPLOAD_MIN_RATE,
  DEFAULT_UPLOAD_RATE_WINDOW,
  DEFAULT_UPLOAD_TIMEOUT,
} from "./api/upload_pace.ts";

/** The request limits of the REST API. */
export interface RequestLimits {
  /** How long a request body may send nothing before it is cut with a 408, in milliseconds. */
  bodyTimeout: number;
  /** How long an upload's body may take in all, in milliseconds. */
  uploadTimeout: number;
  /** The fewest bytes per second an upload's body must bring over each window. */
  uploadMinRate: number;
  /** The window of that rate, in milliseconds of waiting for the body. */
  uploadRateWindow: number;
  /** How many uploads may run at once, all users together. */
  maxUploads: number;
  /** How many uploads one user may run at once. */
  maxUploadsPerUser: number;
}

/**
 * The request limits from the environment: `SVC_API_BODY_TIMEOUT` (seconds,
 * 30), `SVC_API_UPLOAD_TIMEOUT` (seconds, 3600), `SVC_API_UPLOAD_MIN_RATE`
 * (bytes per second, 4096), `SVC_API_UPLOAD_RATE_WINDOW` (seconds, 30),
 * `SVC_API_MAX_UPLOADS` (32) and `SVC_API_MAX_UPLOADS_PER_USER` (8).
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
export function requestLimits(env: Env): RequestLimits {
  return {
    bodyTimeout: envNumber("SVC_API_BODY_TIMEOUT", {
      fallback: DEFAULT_BODY_TIMEOUT,
      unit: "seconds",
      env,
    }) * 1000,
    uploadTimeout: envNumber("SVC_API_UPLOAD_TIMEOUT", {
      fallback: DEFAULT_UPLOAD_TIMEOUT,
      unit: "seconds",
      env,
    }) * 1000,
    uploadMinRate: envNumber("SVC_API_UPLOAD_MIN_RATE", {
      fallback: DEFAULT_UPLOAD_MIN_RATE,
      unit: "bytes",
      env,
    }),
    uploadRateWindow: envNumber("SVC_API_UPLOAD_RATE_WINDOW", {
      fallback: DEFAULT_UPLOAD_RATE_WINDOW,
      unit: "seconds",
      env,
    }) * 1000,
    maxUploads: envNumber("SVC_API_MAX_UPLOADS", { fallback: DEFAULT_MAX_UPLOADS, env }),
    maxUploadsPerUser: envNumber("SVC_API_MAX_UPLOADS_PER_USER", {
      fallback: DEFAULT_MAX_UPLOADS_PER_USER,
      env,
    }),
  };
}
