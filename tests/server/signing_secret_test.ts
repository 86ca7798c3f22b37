import assert from "node:assert/strict";
import { signingKey } from "../../server/signing_secret.ts";
import { tmpDir } from "../test_utils.ts";

Deno.test("signingKey() makes a secret once, keeps it with mode 0600, and says where", async () => {
  await using dir = await tmpDir();
  const lines: string[] = [];
  const options = {
    env: ["SVC_TEST_SECRET"],
    file: "session.key",
    localRoot: dir.path,
    log: (line: string) => lines.push(line),
    variables: {},
  };
  const first = await signingKey(options);
  const again = await signingKey(options);
  assert.deepEqual(again, first);
  assert.equal(first.length, 43, "32 random bytes, as base64url text");
  const path = `${dir.path}/secrets/session.key`;
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(`${dir.path}/secrets`)).mode! & 0o777, 0o700);
  assert.deepEqual(lines, [
    `SVC_TEST_SECRET not set: made a signing secret and kept it in "${path}" (mode 0600)`,
    `SVC_TEST_SECRET not set: signing with the secret kept in "${path}"`,
  ]);
  assert.deepEqual([...Deno.readDirSync(`${dir.path}/secrets`)].map((e) => e.name), [
    "session.key",
  ]);
});

Deno.test("signingKey() takes the first variable set, and refuses one shorter than 32 bytes", async () => {
  await using dir = await tmpDir();
  const env: Record<string, string> = { B: "b".repeat(32) };
  const options = {
    env: ["A", "B"],
    file: "session.key",
    localRoot: dir.path,
    log: () => {},
    variables: env,
  };
  assert.deepEqual(await signingKey(options), new TextEncoder().encode("b".repeat(32)));
  env.A = "too short";
  await assert.rejects(
    signingKey(options),
    /^SvcError: A is 9 bytes long, too short to sign tokens safely/,
  );
  assert.deepEqual([...Deno.readDirSync(dir.path)], [], "no file is made when a variable is set");
});

Deno.test("signingKey() refuses a kept secret that is too short", async () => {
  await using dir = await tmpDir();
  await Deno.mkdir(`${dir.path}/secrets`);
  await Deno.writeTextFile(`${dir.path}/secrets/upload.key`, "short\n");
  await assert.rejects(
    signingKey({ env: [], file: "upload.key", localRoot: dir.path, log: () => {} }),
    /^SvcError: The secret in ".*upload\.key" is 5 bytes long, too short to sign tokens safely/,
  );
});
