/**
 * The secrets that sign svc's tokens: from an environment variable, else made
 * once and kept in the local root, so that a restart keeps sessions and upload
 * tokens valid.
 * @module
 */
import { join } from "../components/core/paths.ts";
import type { Env } from "./settings.ts";
import { quote, SvcError } from "../components/core/errors.ts";
import { secrets } from "../components/core/secrets.ts";
import { hmacKey, MIN_SECRET_BYTES } from "./jwt.ts";

/** Options of {@linkcode signingKey}. */
export interface SigningKeyOptions {
  /** The variables that may set the secret, the first set one winning: `SVC_API_SESSION_SECRET`. */
  env: readonly string[];
  /** The file in `<localRoot>/secrets/` that keeps a secret svc made: `session.key`. */
  file: string;
  /** The local root. */
  localRoot: string;
  /** Where the line that names the file goes. */
  log: (line: string) => void;
  /**
   * The environment svc read at start, where the variables of `env` are looked up.
   * @default {{}}
   */
  variables?: Env;
  /**
   * Keeps a secret elsewhere than the local root: given the name (`file`)
   * and a secret just made, it returns the secret kept under that name,
   * which is the one given unless another process kept one first. svc's
   * replicas on PostgreSQL keep theirs in the database they share.
   */
  keep?: { where: string; secret: (name: string, made: string) => Promise<string> };
}

/**
 * The key of a secret: the first of `options.env` that is set, else the one
 * kept in `<localRoot>/secrets/<file>`, made (32 random bytes, mode 0600) the
 * first time. Two processes that start at once on one local root keep the
 * same secret: the file is only ever created, never replaced.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signingKey } from "./signing_secret.ts";
 * const localRoot = await Deno.makeTempDir();
 * const options = { env: [], file: "test.key", localRoot, log: () => {} };
 * const first = await signingKey(options);
 * assert.deepEqual(await signingKey(options), first);
 * assert.equal((await Deno.stat(`${localRoot}/secrets/test.key`)).mode! & 0o777, 0o600);
 * await Deno.remove(localRoot, { recursive: true });
 * ```
 *
 * @throws {SvcError} for a secret shorter than 32 bytes, naming where it came
 * from, or a file that cannot be read or written
 */
export async function signingKey(options: SigningKeyOptions): Promise<Uint8Array> {
  for (const name of options.env) {
    const value = options.variables?.[name];
    if (value) return hmacKey(value, name);
  }
  const folder = join(options.localRoot, "secrets");
  const path = join(folder, options.file);
  const unset = options.env.length > 0 ? `${options.env.join(" and ")} not set: ` : "";
  if (options.keep) {
    const kept = await options.keep.secret(options.file, newSecret());
    secrets.add(kept);
    options.log(
      `${unset}signing with the secret ${quote(options.file)} kept in ${options.keep.where}`,
    );
    return hmacKey(kept, `The secret ${quote(options.file)} in ${options.keep.where}`);
  }
  try {
    await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
    const text = newSecret();
    // Written whole elsewhere, then linked into place: a process that starts
    // meanwhile never reads a half-written secret.
    const temporary = `${path}.${crypto.randomUUID()}`;
    await Deno.writeTextFile(temporary, `${text}\n`, { createNew: true, mode: 0o600 });
    try {
      await Deno.link(temporary, path);
    } finally {
      await Deno.remove(temporary);
    }
    options.log(`${unset}made a signing secret and kept it in ${quote(path)} (mode 0600)`);
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw cannotKeep(path, error);
    options.log(`${unset}signing with the secret kept in ${quote(path)}`);
  }
  let text: string;
  try {
    text = (await Deno.readTextFile(path)).trim();
  } catch (error) {
    throw cannotKeep(path, error);
  }
  secrets.add(text);
  return hmacKey(text, `The secret in ${quote(path)}`);
}

/** 32 random bytes in base64. */
function newSecret(): string {
  const secret = new Uint8Array(MIN_SECRET_BYTES);
  crypto.getRandomValues(secret);
  return btoa(String.fromCharCode(...secret)).replace(/=+$/, "");
}

function cannotKeep(path: string, error: unknown): SvcError {
  return new SvcError(
    `Cannot keep the signing secret in ${quote(path)}: ${(error as Error).message}`,
    { cause: error },
  );
}
