import assert from "node:assert/strict";
import {
  findAccount,
  loginKey,
  normalizeAccountNames,
} from "../../../server/auth/account_names.ts";
import { freshDatabase, KINDS } from "../database/_helpers.ts";

for (const kind of KINDS) {
  Deno.test(`normalizeAccountNames() renames the accounts made before with their data, and keeps those it cannot (${kind})`, async () => {
    await using fresh = await freshDatabase(kind);
    const db = fresh.db;
    // Accounts as an svc that did not normalise names made them.
    for (const user of ["Alice", "Bob", "bob", "\u0430lice", "carol"]) {
      await db.addAccount(user, `hash of ${user}`, 0);
    }
    await db.addDocument("Alice", { id: "d1", name: "notes.md", metadata: {} });
    await db.startSession({ id: "s1", user: "Alice", created: 0, expires: 2 ** 40 });

    assert.deepEqual(await normalizeAccountNames(db), [
      'The account "Alice" is now "alice", with its documents and chats: usernames are kept in ' +
      "one spelling, and any spelling of it signs in; its sessions have ended",
      'The account "Bob" keeps its name: its normalised name "bob" is another user\'s, so it ' +
      'signs in only with its exact spelling; remove one of them with "svc user remove" if ' +
      "they are one person",
      'The account "\u0430lice" has a name svc now refuses (it mixes letters of the Cyrillic and ' +
      "Latin scripts, which can look alike): it signs in only with that exact spelling; remove " +
      'it with "svc user remove" if it is not wanted',
    ]);
    const names = (await db.listAccounts(0)).map((account) => account.user).sort();
    assert.deepEqual(names, ["Bob", "alice", "bob", "carol", "\u0430lice"]);
    assert.equal((await db.getDocument("alice", "d1")).name, "notes.md", "its data followed");
    assert.equal(await db.sessionUser("s1", 1), undefined, "its session ended");
    // Once is enough: the second run renames nothing and tells only of those kept.
    assert.equal((await normalizeAccountNames(db)).length, 2);

    const found = async (typed: string) => (await findAccount(db, typed))?.user;
    assert.equal(await found("ALICE"), "alice");
    assert.equal(await found("ａｌｉｃｅ"), "alice");
    assert.equal(await found("Bob"), "Bob", "the exact spelling first");
    assert.equal(await found("BOB"), "bob");
    assert.equal(await found("\u0430lice"), "\u0430lice");
    assert.equal(await found("alice\u200b"), undefined);
    assert.equal(await found("dave"), undefined);
  });
}

Deno.test("loginKey() counts the spellings of a name as one, and refuses names longer than any", () => {
  assert.equal(loginKey("Alice"), "alice");
  assert.equal(loginKey("ａｌｉｃｅ"), "alice");
  assert.equal(loginKey("alice\u200b"), "alice\u200b");
  assert.equal(loginKey("a".repeat(2000)), undefined);
});
