/**
 * Password hashes: argon2id, through hash-wasm (WebAssembly, so that the
 * compiled binary needs nothing native), loaded the first time a password is
 * hashed or checked.
 * @module
 */
import type * as HashWasm from "npm:hash-wasm@4.13.0";
import { importPackage } from "../../components/packages.ts";

/**
 * The costs of a new hash: OWASP's argon2id setting of 19 MiB, 2 passes, one
 * lane. A hash keeps its own costs, so raising these later leaves old hashes
 * readable.
 */
export const ARGON2ID_COSTS = { memorySize: 19 * 1024, iterations: 2, parallelism: 1 };

/**
 * The argon2id hash of a password with a fresh random salt, as a PHC string
 * (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashPassword, verifyPassword } from "./password_hash.ts";
 * const hash = await hashPassword("correct horse");
 * assert.match(hash, /^\$argon2id\$/);
 * assert.equal(await verifyPassword("correct horse", hash), true);
 * assert.equal(await verifyPassword("wrong horse", hash), false);
 * ```
 */
export async function hashPassword(password: string): Promise<string> {
  const { argon2id } = await importPackage<typeof HashWasm>("hash-wasm");
  return await argon2id({
    password,
    salt: crypto.getRandomValues(new Uint8Array(16)),
    hashLength: 32,
    outputType: "encoded",
    ...ARGON2ID_COSTS,
  });
}

/** Whether `password` is the one `hash` was made from; a hash that cannot be read matches nothing. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const { argon2Verify } = await importPackage<typeof HashWasm>("hash-wasm");
  try {
    return await argon2Verify({ password, hash });
  } catch {
    return false;
  }
}
