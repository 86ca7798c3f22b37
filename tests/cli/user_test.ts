import assert from "node:assert/strict";
import { run as runCli } from "../../cli/mod.ts";
import { type PasswordInput, userCommand } from "../../cli/user.ts";
import { openDatabase } from "../../server/database/mod.ts";
import { denoArgs, freePort, MAIN, spawn } from "../_process.ts";
import { tmpDir } from "../test_utils.ts";
import { startApi } from "./_api_process.ts";
import { capture } from "./_io.ts";
import { integration } from "../_tier.ts";

/** A configuration of password sign-in in a temporary folder. */
async function passwordConfig(folder: string, port = 31476): Promise<string> {
  const path = `${folder}/svc.toml`;
  await Deno.writeTextFile(
    path,
    `local_root = "root"\nauthentication = "svc.deploy.PasswordAuthentication"\n` +
      `[api]\nport = ${port}\n`,
  );
  return path;
}

/** Input that answers the prompts in order, or gives standard input. */
function input(options: { terminal: boolean; answers?: string[]; stdin?: string }) {
  const asked: string[] = [];
  const answers = [...options.answers ?? []];
  const scripted: PasswordInput & { asked: string[] } = {
    asked,
    isTerminal: () => options.terminal,
    ask: (message) => {
      asked.push(message);
      return Promise.resolve(answers.shift() ?? "");
    },
    readAll: () => Promise.resolve(options.stdin ?? ""),
  };
  return scripted;
}

/** Runs `svc user ...args` in-process; the exit code and what it wrote. */
async function user(args: string[], password: PasswordInput) {
  const io = capture();
  let code = 0;
  const command = userCommand({ io, exit: (c) => code = c, env: {} }, {
    input: password,
    now: () => Date.parse("2026-03-01T12:00:00Z"),
  });
  command.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const sub of command.commands) sub.exitOverride();
  try {
    await command.parseAsync(args, { from: "user" });
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n`);
    code = 1;
  }
  return { code, ...io };
}

Deno.test("svc user add asks for the password twice without echo, and stores only its argon2id hash", async () => {
  await using dir = await tmpDir();
  const config = await passwordConfig(dir.path);
  const terminal = input({ terminal: true, answers: ["correct horse", "correct horse"] });
  const added = await user(["add", "ada", "-c", config], terminal);
  assert.equal(added.code, 0, added.stderr);
  assert.equal(added.stdout, 'Added the user "ada"\n');
  assert.deepEqual(terminal.asked, ['Password of "ada":', "The same password again:"]);
  const database = await openDatabase(`sqlite:///${dir.path}/root/svc.db`, { localRoot: dir.path });
  try {
    const hash = await database.passwordHash("ada");
    assert.match(hash!, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.ok(!hash!.includes("correct horse"));
  } finally {
    await database.close();
  }
  const again = await user(
    ["add", "ADA", "-c", config],
    input({ terminal: false, stdin: "another password" }),
  );
  assert.equal(again.code, 1);
  assert.match(
    again.stderr,
    /The user "ada" has an account already: change its password with "svc user passwd"/,
  );
});

Deno.test("svc user refuses passwords that differ, are short, and names it cannot use", async () => {
  await using dir = await tmpDir();
  const config = await passwordConfig(dir.path);
  const differ = await user(
    ["add", "ada", "-c", config],
    input({ terminal: true, answers: ["correct horse", "correct house"] }),
  );
  assert.match(differ.stderr, /The two passwords differ: nothing was changed/);
  const short = await user(
    ["add", "ada", "-c", config],
    input({ terminal: false, stdin: "short\n" }),
  );
  assert.match(
    short.stderr,
    /The password is too weak: it must have at least 8 characters other than spaces; nothing was changed/,
  );
  for (const weak of [" ".repeat(8), "password", "12345678", "xxxxxxxx", "ada"]) {
    const refused = await user(
      ["add", "ada", "-c", config],
      input({ terminal: false, stdin: `${weak}\n` }),
    );
    assert.equal(refused.code, 1, weak);
    assert.match(refused.stderr, /The password is too weak: /, weak);
  }
  const blank = await user([
    "add",
    " ada",
    "-c",
    config,
  ], input({ terminal: false, stdin: "long enough\n" }));
  assert.match(
    blank.stderr,
    /The username " ada" cannot be used: it has a space at either end, or two in a row/,
  );
  for (
    const [name, problem] of [
      ["ada\u200b", "it holds an invisible or control character \\(U\\+200B\\)"],
      ["\u0430da", "it mixes letters of the Cyrillic and Latin scripts, which can look alike"],
    ]
  ) {
    const refused = await user(
      ["add", name!, "-c", config],
      input({ terminal: false, stdin: "long enough\n" }),
    );
    assert.match(refused.stderr, new RegExp(`The username "${name}" cannot be used: ${problem}`));
  }
  const list = await user(["list", "-c", config], input({ terminal: false }));
  assert.equal(list.stdout, 'No users yet: add one with "svc user add NAME"\n');
});

Deno.test("svc user passwd, list and remove manage the accounts, and warn when the configuration does not use them", async () => {
  await using dir = await tmpDir();
  const config = await passwordConfig(dir.path);
  const stdin = (text: string) => input({ terminal: false, stdin: text });
  assert.equal((await user(["add", "ada", "-c", config], stdin("first password\n"))).code, 0);
  assert.equal(
    (await user(["add", "grace", "--password-stdin", "-c", config], stdin("grace's pass"))).code,
    0,
  );
  const changed = await user(["passwd", "ada", "-c", config], stdin("second password\r\n"));
  assert.equal(changed.stdout, 'Set the password of "ada"; its sessions have ended\n');
  const missing = await user(["passwd", "bob", "-c", config], stdin("whatever pw\n"));
  assert.match(missing.stderr, /The user "bob" has no account: "svc user list" lists them/);
  const list = await user(["list", "-c", config], stdin(""));
  assert.equal(
    list.stdout,
    "user   added       password set  open sessions\n" +
      "ada    2026-03-01  2026-03-01    0\n" +
      "grace  2026-03-01  2026-03-01    0\n",
  );
  const removed = await user(["remove", "grace", "-c", config], stdin(""));
  assert.match(removed.stdout, /^Removed the user "grace" and ended its sessions/);
  assert.doesNotMatch((await user(["list", "-c", config], stdin(""))).stdout, /grace/);

  const demo = `${dir.path}/demo.toml`;
  await Deno.writeTextFile(demo, 'local_root = "root"\n');
  const warned = await user(["list", "-c", demo], stdin(""));
  assert.match(
    warned.stderr,
    /^warning: the configuration signs in with "svc\.deploy\.SvcDemoAuthentication", which does not use these accounts/,
  );
});

Deno.test("svc user keeps a name in its one spelling, finds an account by any spelling, and unlocks it", async () => {
  await using dir = await tmpDir();
  const config = await passwordConfig(dir.path);
  const stdin = (text: string) => input({ terminal: false, stdin: text });
  const added = await user(["add", "Ａlice", "-c", config], stdin("first password\n"));
  assert.equal(added.stdout, 'Added the user "alice" (the one spelling of "Ａlice")\n');
  const taken = await user(["add", "ALICE", "-c", config], stdin("other password\n"));
  assert.match(taken.stderr, /The user "alice" has an account already/);
  const changed = await user(["passwd", "Alice", "-c", config], stdin("second password\n"));
  assert.equal(changed.stdout, 'Set the password of "alice"; its sessions have ended\n');

  const database = await openDatabase(`sqlite:///${dir.path}/root/svc.db`, { localRoot: dir.path });
  try {
    const limits = { since: 0, perUserAddress: 10, perAddress: 30, perUser: 100 };
    for (const address of ["203.0.113.9", "198.51.100.7"]) {
      await database.reserveLoginAttempt(
        { id: crypto.randomUUID(), user: "alice", address, at: Date.now() },
        limits,
      );
    }
  } finally {
    await database.close();
  }
  const unlocked = await user(["unlock", "ALICE", "-c", config], stdin(""));
  assert.equal(
    unlocked.stdout,
    'Forgot 2 failed logins of "alice": it can log in again from every address\n',
  );
  const again = await user(["unlock", "alice", "-c", config], stdin(""));
  assert.match(again.stdout, /^Forgot 0 failed logins of "alice"/);
  const removed = await user(["remove", "ａｌｉｃｅ", "-c", config], stdin(""));
  assert.match(removed.stdout, /^Removed the user "alice"/);
  const missing = await user(["remove", "alice\u200b", "-c", config], stdin(""));
  assert.match(missing.stderr, /The user "alice\u200b" has no account: "svc user list" lists them/);
});

Deno.test("svc user gives the accounts made before names were normalised their one spelling, and lists those it cannot", async () => {
  await using dir = await tmpDir();
  const config = await passwordConfig(dir.path);
  const database = await openDatabase(`sqlite:///${dir.path}/root/svc.db`, { localRoot: dir.path });
  try {
    for (const name of ["Grace", "Bob", "bob"]) await database.addAccount(name, "hash", 0);
  } finally {
    await database.close();
  }
  const list = await user(["list", "-c", config], input({ terminal: false }));
  assert.equal(list.code, 0, list.stderr);
  assert.equal(
    list.stderr,
    'note: The account "Bob" keeps its name: its normalised name "bob" is another user\'s, so ' +
      'it signs in only with its exact spelling; remove one of them with "svc user remove" if ' +
      "they are one person\n" +
      'note: The account "Grace" is now "grace", with its documents and chats: usernames are ' +
      "kept in one spelling, and any spelling of it signs in; its sessions have ended\n",
  );
  assert.match(list.stdout, /^Bob +1970-01-01/m);
  assert.match(list.stdout, /^grace +1970-01-01/m);
  const removed = await user(["remove", "Bob", "-c", config], input({ terminal: false }));
  assert.match(removed.stdout, /^Removed the user "Bob"/);
});

Deno.test("svc user takes no password as an argument", async () => {
  const io = capture();
  assert.equal(await runCli(["user", "add", "ada", "hunter22"], io, { env: {} }), 1);
  assert.match(io.stderr, /^error: Unexpected argument "hunter22" for "svc user add"/);
});

integration.test("a real svc api signs in a user added by svc user add --password-stdin, and keeps its sessions and upload tokens across a restart", async () => {
  await using dir = await tmpDir();
  const port = freePort();
  const config = await passwordConfig(dir.path, port);
  const adding = spawn(
    Deno.execPath(),
    denoArgs("run", "-A", MAIN, "user", "add", "ada", "--password-stdin", "-c", config),
    {
      stdin: "piped",
    },
  );
  const writer = adding.process.stdin.getWriter();
  await writer.write(new TextEncoder().encode("correct horse battery\n"));
  await writer.close();
  const added = await adding.ended;
  assert.equal(added.code, 0, added.stderr);
  assert.equal(added.stdout, 'Added the user "ada"\n');

  // No secret in the environment: both are made once and kept in the local root.
  const unset = { SVC_API_DOCUMENT_UPLOAD_SECRET: "", SVC_DEMO_AUTHENTICATION_SECRET: "" };
  const login = (base: string, password: string) =>
    fetch(`${base}/token`, {
      method: "POST",
      body: new URLSearchParams({ username: "ada", password }),
    });
  let token: string;
  let upload: { parameters: { url: string; data: { token: string } } };
  {
    await using api = await startApi(config, port, unset);
    assert.equal((await login(api.base, "ada")).status, 401);
    token = await (await login(api.base, "correct horse battery")).json();
    upload = await (await fetch(`${api.base}/document`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "notes.md" }),
    })).json();
    const stopped = await api.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(
      stopped.stderr,
      /SVC_API_SESSION_SECRET and SVC_DEMO_AUTHENTICATION_SECRET not set: made a signing secret and kept it in /,
    );
  }
  const secret = await Deno.stat(`${dir.path}/root/secrets/session.key`);
  assert.equal(secret.mode! & 0o777, 0o600);

  await using again = await startApi(config, port, unset);
  const headers = { authorization: `Bearer ${token}` };
  assert.equal((await fetch(`${again.base}/chats`, { headers })).status, 200, "the old session");
  const form = new FormData();
  form.set("token", upload.parameters.data.token);
  form.set("file", new Blob(["# Notes\n"]), "notes.md");
  const put = await fetch(upload.parameters.url, { method: "PUT", body: form });
  assert.equal(put.status, 200, await put.clone().text());
  assert.equal((await fetch(`${again.base}/logout`, { method: "POST", headers })).status, 200);
  const ended = await fetch(`${again.base}/chats`, { headers });
  assert.equal(ended.status, 401);
  assert.match((await ended.json()).error.message, /session has ended/);
  assert.match(again.stderr(), /signing with the secret kept in /);
});
