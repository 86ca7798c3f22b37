import assert from "node:assert/strict";
import { PasswordAuthentication } from "../../../server/auth/password.ts";
import { hashPassword } from "../../../server/auth/password_hash.ts";
import { expectError } from "../../rely/_hostile.ts";
import { testApi } from "../api/_api.ts";
import { bearer, login, setUp } from "./_context.ts";

const WRONG = "The username or password is wrong";

Deno.test("PasswordAuthentication logs in a user with an account and the right password only", async () => {
  await using set = await setUp(new PasswordAuthentication());
  assert.deepEqual(set.warnings, [
    'PasswordAuthentication has no accounts yet: nobody can log in until "svc user add NAME" ' +
    "makes one",
  ]);
  await set.database.addAccount("grace", await hashPassword("correct horse"), 0);
  const token = await set.auth.createToken(login("grace", "correct horse"));
  assert.equal(await set.auth.getUser(bearer(token)), "grace");
  for (const [user, password] of [["grace", "wrong horse"], ["grace", ""], ["nobody", "x"]]) {
    await assert.rejects(set.auth.createToken(login(user, password)), (error: Error) => {
      assert.equal(error.message, WRONG, `${user} / ${password}`);
      return true;
    });
  }
  // The demo's rule is not this one's: the username is no password.
  await set.database.addAccount("ada", await hashPassword("something else"), 0);
  await assert.rejects(set.auth.createToken(login("ada", "ada")), /wrong/);
});

Deno.test("POST /token limits failed logins per user, with 429 and Retry-After, the right password included", async () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const authentication = new PasswordAuthentication({
    limits: { perUser: 3, perAddress: 100, window: 60, now: () => now },
  });
  await using api = await testApi({ authentication });
  await api.deps.database.addAccount("grace", await hashPassword("correct horse"), 0);
  const token = (password: string, address = "10.0.0.1") =>
    api.app.request("http://svc.test/token", {
      method: "POST",
      body: new URLSearchParams({ username: "grace", password }),
    }, { remoteAddr: { hostname: address } });

  for (let i = 0; i < 3; i++) await expectError(await token("guess"), 401, WRONG);
  now += 10_000;
  const limited = await token("correct horse", "10.0.0.2");
  assert.equal(limited.headers.get("retry-after"), "50");
  await expectError(
    limited,
    429,
    'Too many failed logins for "grace": 3 in 1 min; try again in 50 s',
  );
  now += 50_000;
  assert.equal((await token("correct horse")).status, 200, "once the window has passed");
  // A success forgets the user's failures.
  for (let i = 0; i < 2; i++) await expectError(await token("guess"), 401, WRONG);
  assert.equal((await token("correct horse")).status, 200);
});

Deno.test("POST /token limits failed logins per address, whichever users they name", async () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const authentication = new PasswordAuthentication({
    limits: { perUser: 100, perAddress: 4, window: 900, now: () => now },
  });
  await using api = await testApi({ authentication });
  await api.deps.database.addAccount("grace", await hashPassword("correct horse"), 0);
  const token = (username: string, password: string, address: string) =>
    api.app.request("http://svc.test/token", {
      method: "POST",
      body: new URLSearchParams({ username, password }),
    }, { remoteAddr: { hostname: address } });
  for (const user of ["a", "b", "c", "d"]) {
    await expectError(await token(user, "guess", "203.0.113.9"), 401, WRONG);
  }
  now += 60_000;
  const limited = await token("grace", "correct horse", "203.0.113.9");
  assert.equal(limited.headers.get("retry-after"), "840");
  await expectError(
    limited,
    429,
    "Too many failed logins from the address 203.0.113.9: 4 in 15 min; try again in 840 s",
  );
  assert.equal((await token("grace", "correct horse", "203.0.113.10")).status, 200);
});

Deno.test("failed logins are counted in the database, so that replicas on one database count them all", async () => {
  const limits = { perUser: 2, perAddress: 100, window: 60 };
  await using first = await setUp(new PasswordAuthentication({ limits }));
  // A second replica: its own PasswordAuthentication, the same database.
  await using second = await setUp(new PasswordAuthentication({ limits }), {
    database: first.database,
  });
  await first.database.addAccount("grace", await hashPassword("correct horse"), 0);
  await assert.rejects(first.auth.createToken(login("grace", "guess")), /wrong/);
  await assert.rejects(second.auth.createToken(login("grace", "guess")), /wrong/);
  for (const replica of [first, second]) {
    await assert.rejects(
      replica.auth.createToken(login("grace", "correct horse")),
      /Too many failed logins for "grace": 2 in 1 min/,
    );
  }
  assert.deepEqual(
    (await first.database.loginFailures("user:grace", 0)).length,
    2,
    "both failures in the database",
  );
});
