/**
 * The local root: the folder where svc and its components keep their files.
 * @module
 */
import { homedir, join, resolve } from "./paths.ts";
import { envVar } from "./requirements.ts";

let current = resolve(envVar("SVC_LOCAL_ROOT") ?? join(homedir(), ".cache", "svc"));

/**
 * The local root: the folder where svc and its components keep their files.
 * It starts as env `SVC_LOCAL_ROOT`, else `~/.cache/svc`. Given a path, it sets
 * the local root and creates the folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { localRoot } from "@svc/svc";
 * const folder = localRoot(await Deno.makeTempDir());
 * assert(localRoot() === folder);
 * ```
 */
export function localRoot(path?: string): string {
  if (path !== undefined) {
    current = resolve(path);
    Deno.mkdirSync(current, { recursive: true });
  }
  return current;
}
