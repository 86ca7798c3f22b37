import assert from "node:assert/strict";
import { PasswordAuthentication } from "../../../server/auth/password.ts";
import { hashPassword, PasswordPool } from "../../../server/auth/password_hash.ts";
import { expectError } from "../../rely/_hostile.ts";
import { testApi } from "../api/_api.ts";
import { bearer, login, setUp } from "./_context.ts";

const WRONG = "The username or password is wrong";

/** A pool that counts the passwords it checked. */
class CountingPool extends PasswordPool {
  verified = 0;

  override verify(password: string, hash: string): Promise<boolean> {
    this.verified++;
    return super.verify(password, hash);
  }
}

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

Deno.test("POST /token limits failed logins per user and address, the right password included, and lets the user in from elsewhere", async () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const authentication = new PasswordAuthentication({
    limits: { perUserAddress: 3, perAddress: 100, perUser: 100, window: 60, now: () => now },
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
  const limited = await token("correct horse");
  assert.equal(limited.headers.get("retry-after"), "50");
  await expectError(
    limited,
    429,
    'Too many failed logins for "grace" from the address 10.0.0.1: 3 in 1 min; try again in 50 s',
  );
  assert.equal((await token("correct horse", "10.0.0.2")).status, 200, "from another address");
  now += 50_000;
  assert.equal((await token("correct horse")).status, 200, "once the window has passed");
  // A success forgets the user's failures from its address.
  for (let i = 0; i < 2; i++) await expectError(await token("guess"), 401, WRONG);
  assert.equal((await token("correct horse")).status, 200);
  for (let i = 0; i < 2; i++) await expectError(await token("guess"), 401, WRONG);
  assert.equal((await token("correct horse")).status, 200);
});

Deno.test("POST /token checks at most the limit of 40 guesses sent at once, and then not the right password", async () => {
  const passwords = new CountingPool({ workers: 1 });
  const authentication = new PasswordAuthentication({
    limits: { perUserAddress: 10, perAddress: 100, perUser: 100, window: 900 },
    passwords,
  });
  await using api = await testApi({ authentication });
  await api.deps.database.addAccount("grace", await passwords.hash("correct horse"), 0);
  const token = (password: string) =>
    api.app.request("http://svc.test/token", {
      method: "POST",
      body: new URLSearchParams({ username: "grace", password }),
    }, { remoteAddr: { hostname: "203.0.113.9" } });
  // testApi() tried a login of its own.
  const before = passwords.verified;
  const statuses = (await Promise.all(Array.from({ length: 40 }, () => token("guess"))))
    .map((response) => response.status);
  assert.equal(statuses.filter((status) => status === 401).length, 10);
  assert.equal(statuses.filter((status) => status === 429).length, 30);
  assert.equal(passwords.verified - before, 10, "passwords checked");
  assert.equal((await token("correct horse")).status, 429);
  assert.equal(passwords.verified - before, 10);
});

Deno.test("POST /token signs in any spelling of a username, counts them as one, and refuses look-alikes", async () => {
  // A clock that stands still, so that the wait named at the end is the whole window.
  const now = Date.parse("2026-01-01T00:00:00Z");
  const authentication = new PasswordAuthentication({
    limits: { perUserAddress: 2, perAddress: 100, perUser: 100, window: 900, now: () => now },
  });
  await using api = await testApi({ authentication });
  await api.deps.database.addAccount("alice", await hashPassword("correct horse"), 0);
  const token = (username: string, password: string, address = "10.0.0.1") =>
    api.app.request("http://svc.test/token", {
      method: "POST",
      body: new URLSearchParams({ username, password }),
    }, { remoteAddr: { hostname: address } });
  for (const spelling of ["alice", "Alice", "ＡＬＩＣＥ"]) {
    const response = await token(spelling, "correct horse");
    assert.equal(response.status, 200, spelling);
    const headers = { authorization: `Bearer ${await response.json()}` };
    const chats = await api.app.request("http://svc.test/chats", { headers });
    assert.equal(chats.status, 200);
  }
  for (const lookalike of ["alice\u200b", "\u0430lice", "alice\u202e"]) {
    await expectError(await token(lookalike, "correct horse", "10.0.0.9"), 401, WRONG);
  }
  await expectError(await token("Alice", "guess"), 401, WRONG);
  await expectError(await token("ALICE", "guess"), 401, WRONG);
  await expectError(
    await token("alice", "correct horse"),
    429,
    'Too many failed logins for "alice" from the address 10.0.0.1: 2 in 15 min; try again in ' +
      "900 s",
  );
});

Deno.test("POST /token limits failed logins per address, whichever users they name", async () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const authentication = new PasswordAuthentication({
    limits: { perUserAddress: 100, perUser: 100, perAddress: 4, window: 900, now: () => now },
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
  const limits = { perUserAddress: 2, perUser: 100, perAddress: 100, window: 60 };
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
    (await first.database.loginAttemptTimes({ user: "grace" }, 0)).length,
    2,
    "both failures in the database",
  );
});
