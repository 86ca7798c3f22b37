/**
 * Password guessing against a real `svc api` process with password sign-in:
 * guesses sent at once get no more than the limit checked, the right password
 * among them included; a burst of logins leaves `/health` and another user's
 * requests answered while it runs; and a guesser's burst from one address
 * does not keep the owner out from another. Clients stand behind a trusted
 * proxy on loopback, which names their addresses in `X-Forwarded-For`.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tmpDir } from "../test_utils.ts";
import { failures } from "./_checks.ts";
import { addAccounts, login, PASSWORD } from "./_hostile_logins.ts";
import { startSvc, type Svc } from "./_server.ts";
import { integration } from "../_tier.ts";

/** `svc api` with password sign-in and the accounts of `users`, each with {@linkcode PASSWORD}. */
async function passwordSvc(dir: string, users: string[]): Promise<Svc> {
  await addAccounts(join(dir, "root"), users);
  return await startSvc(dir, {
    env: {
      SVC_AUTHENTICATION: "svc.deploy.PasswordAuthentication",
      SVC_API_TRUSTED_PROXIES: '["127.0.0.1"]',
      SVC_API_LOGIN_FAILURES_PER_USER_ADDRESS: "10",
    },
  });
}

integration.test("40 guesses sent at once at one account get at most the limit checked, and the right password no more", async () => {
  await using dir = await tmpDir();
  await using svc = await passwordSvc(dir.path, ["grace"]);
  const guesses = Array.from(
    { length: 40 },
    (_, i) => login(svc, "grace", i === 25 ? PASSWORD : `guess ${i}`, "203.0.113.9"),
  );
  const answers = await Promise.all(guesses);
  const checked = answers.filter((answer) => answer.status !== 429);
  assert.equal(checked.length, 10, JSON.stringify(answers.map((answer) => answer.status)));
  for (const answer of answers.filter((answer) => answer.status === 429)) {
    assert.match(
      answer.body.error.message,
      /^Too many failed logins for "grace" from the address 203\.0\.113\.9: \d+ in 15 min; try again in \d+ s$/,
    );
  }
  const after = await login(svc, "grace", PASSWORD, "203.0.113.9");
  assert.equal(after.status, 429, "the right password, once the limit is reached");
  // The owner, from another address, is not kept out.
  assert.equal((await login(svc, "grace", PASSWORD, "198.51.100.7")).status, 200);
  assert.deepEqual(failures(svc), []);
});

integration.test("30 logins at once leave /health and another user's GET /chats answered while they run", async () => {
  await using dir = await tmpDir();
  const users = Array.from({ length: 30 }, (_, i) => `user${i}`);
  await using svc = await passwordSvc(dir.path, ["bob", ...users]);
  const bob = await login(svc, "bob", PASSWORD, "198.51.100.7");
  assert.equal(bob.status, 200);
  const headers = { authorization: `Bearer ${bob.body}` };

  let running = true;
  const burst = Promise.all(
    users.map((user, i) => login(svc, user, PASSWORD, `203.0.113.${i + 1}`)),
  ).finally(() => running = false);
  let answeredDuring = 0;
  while (running) {
    const [health, chats] = await Promise.all([
      fetch(`${svc.base}/health`),
      fetch(`${svc.base}/chats`, { headers }),
    ]);
    assert.equal(health.status, 200);
    assert.equal(chats.status, 200);
    await Promise.all([health.body?.cancel(), chats.body?.cancel()]);
    if (running) answeredDuring++;
  }
  const answers = await burst;
  assert.deepEqual(answers.map((answer) => answer.status), users.map(() => 200));
  // Hashing on the thread that answers lets a request through only between two hashes, if at all.
  assert.ok(
    answeredDuring >= users.length,
    `answered ${answeredDuring} times while ${users.length} logins ran`,
  );
  assert.deepEqual(failures(svc), []);
});
