/**
 * The quotas of each user, which keep one user from filling the disk or the
 * database for all: how many chats they may have, how many bytes their
 * uploaded documents may take, and how many documents they may register
 * without sending their files. Each is an environment variable with a default.
 * @module
 */
import { envNumber } from "../components/core/env_number.ts";
import { type Env, numberDefault } from "./settings.ts";

/** The most chats one user may have, unless `SVC_API_MAX_CHATS_PER_USER` says otherwise. */
export const DEFAULT_MAX_CHATS_PER_USER: number = numberDefault("SVC_API_MAX_CHATS_PER_USER");

/** The most bytes one user's uploads may take, unless `SVC_API_MAX_STORAGE_PER_USER` says otherwise: 1 GiB. */
export const DEFAULT_MAX_STORAGE_PER_USER: number = numberDefault("SVC_API_MAX_STORAGE_PER_USER");

/**
 * The most documents one user may have registered (`POST /document`) whose
 * files have not come, among those whose upload can still start, unless
 * `SVC_API_MAX_PENDING_DOCUMENTS_PER_USER` says otherwise.
 */
export const DEFAULT_MAX_PENDING_DOCUMENTS_PER_USER: number = numberDefault(
  "SVC_API_MAX_PENDING_DOCUMENTS_PER_USER",
);

/** The quotas of each user. */
export interface Quotas {
  /** The most chats one user may have. */
  maxChatsPerUser: number;
  /** The most bytes the files one user uploaded may take. */
  maxStoragePerUser: number;
  /** The most registered documents of one user that wait for their file. */
  maxPendingDocumentsPerUser: number;
}

/**
 * The quotas from the environment: `SVC_API_MAX_CHATS_PER_USER` (1000),
 * `SVC_API_MAX_STORAGE_PER_USER` (bytes, 1 GiB) and
 * `SVC_API_MAX_PENDING_DOCUMENTS_PER_USER` (200).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quotas } from "./quotas.ts";
 * const set = quotas({ SVC_API_MAX_CHATS_PER_USER: "50" });
 * assert.equal(set.maxChatsPerUser, 50);
 * assert.equal(set.maxStoragePerUser, 1024 ** 3);
 * ```
 *
 * @throws {SvcError} naming the variable whose value is not a positive whole number
 */
export function quotas(env: Env): Quotas {
  return {
    maxChatsPerUser: envNumber("SVC_API_MAX_CHATS_PER_USER", {
      fallback: DEFAULT_MAX_CHATS_PER_USER,
      env,
    }),
    maxStoragePerUser: envNumber("SVC_API_MAX_STORAGE_PER_USER", {
      fallback: DEFAULT_MAX_STORAGE_PER_USER,
      unit: "bytes",
      env,
    }),
    maxPendingDocumentsPerUser: envNumber("SVC_API_MAX_PENDING_DOCUMENTS_PER_USER", {
      fallback: DEFAULT_MAX_PENDING_DOCUMENTS_PER_USER,
      env,
    }),
  };
}
