/**
 * Password sign-in for the reliability tests and `bench/attacks.ts`: accounts written to the
 * database before `svc api` starts, and logins sent as from an address that a trusted proxy on
 * loopback names in `X-Forwarded-For`.
 * @module
 */
import { join } from "node:path";
import { hashPassword } from "../../server/auth/password_hash.ts";
import { openDatabase } from "../../server/database/mod.ts";

/** The password of the accounts, unless one is given. */
export const PASSWORD = "correct horse battery";

/**
 * Adds accounts for `users` to the database of the local root `root`, each with `password`;
 * hashed once, so that hundreds of accounts take one hash.
 */
export async function addAccounts(
  root: string,
  users: readonly string[],
  password = PASSWORD,
): Promise<void> {
  await Deno.mkdir(root, { recursive: true });
  const database = await openDatabase(`sqlite:///${join(root, "svc.db")}`, { localRoot: root });
  try {
    const hash = await hashPassword(password);
    for (const user of users) await database.addAccount(user, hash, 0);
  } finally {
    await database.close();
  }
}

/** A login at the API at `base` from `address`; its status and body. */
export async function login(
  { base }: { base: string },
  user: string,
  password: string,
  address: string,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}/token`, {
    method: "POST",
    headers: { "x-forwarded-for": address },
    body: new URLSearchParams({ username: user, password }),
  });
  return { status: response.status, body: await response.json() };
}
