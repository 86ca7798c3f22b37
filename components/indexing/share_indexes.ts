/**
 * Whose chats share an index: each user's own, unless `SVC_SHARE_INDEXES`
 * lets every user's chats share the index of the same content. The owner is
 * part of an index's key (`indexInfo()`), so that indexes are kept apart by it.
 * @module
 */
import { quote, SvcError } from "../core/errors.ts";
import { envVar } from "../core/requirements.ts";

/** The variable that lets the chats of different users share indexes. */
export const SHARE_INDEXES_ENV = "SVC_SHARE_INDEXES";

/**
 * Whether the environment lets different users' chats share indexes:
 * `SVC_SHARE_INDEXES` set to `true` (or `1`, `yes`, `on`). Off by default,
 * since a shared index tells one user, by how fast a document is prepared,
 * that another user has the same document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shareIndexesFromEnv } from "./share_indexes.ts";
 * assert.equal(shareIndexesFromEnv(undefined), false);
 * assert.equal(shareIndexesFromEnv("true"), true);
 * ```
 *
 * @throws {SvcError} for a value that is neither true nor false
 */
export function shareIndexesFromEnv(value = envVar(SHARE_INDEXES_ENV)): boolean {
  const setting = value?.trim().toLowerCase() ?? "";
  if (["true", "1", "yes", "on"].includes(setting)) return true;
  if (["false", "0", "no", "off", ""].includes(setting)) return false;
  throw new SvcError(
    `The environment variable ${quote(SHARE_INDEXES_ENV)} must be "true" or "false", ` +
      `not ${quote(value!)}`,
  );
}
