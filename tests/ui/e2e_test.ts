/**
 * The web UI as a person uses it, in Chromium, against a real `svc ui` and
 * its API. Each step saves a screenshot under tests/ui/screenshots/.
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "npm:playwright-core@1.65.1";
import { freePort } from "../_process.ts";
import { ACCOUNT, CLIENT, startProvider } from "../server/auth/_oidc_provider.ts";
import { FIXTURES } from "../test_utils.ts";
import { browserTest, screenshot, startSvcUi, until } from "./_browser.ts";
import { CHUNKS } from "./slow_assistant.ts";

const FULL_ANSWER = CHUNKS.join("");

async function logIn(page: Page, username: string, password: string) {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** The text of the last answer on the page. */
function lastAnswer(page: Page) {
  return page.locator("article.message.assistant").last();
}

browserTest(
  "the web UI: log in, create a chat with uploads, stream, sources, copy, delete, API keys, log out",
  async (browser) => {
    await using svc = await startSvcUi();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: svc.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });

    await page.goto(svc.url);
    await page.waitForURL(/\/auth\/$/);
    await page.getByText("using the username itself as the password").waitFor();
    await screenshot(page, "01-login");

    // A wrong password is refused in words, on the page.
    await logIn(page, "ada", "not-ada");
    const failure = page.getByRole("alert");
    await failure.waitFor();
    assert.match(await failure.innerText(), /The username or password is wrong/);
    await screenshot(page, "02-login-failed");

    await logIn(page, "ada", "ada");
    await page.getByRole("heading", { name: "Ask your documents" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/");
    await screenshot(page, "03-no-chats");

    // The new chat dialog: components and their parameters from /components, uploads with progress.
    await page.getByRole("button", { name: "New chat" }).first().click();
    const dialog = page.getByRole("dialog", { name: "New chat" });
    await dialog.waitFor();
    await dialog.getByLabel("Name").fill("Report and notes");
    await dialog.getByLabel("Assistant").selectOption("Test/SlowAssistant");
    await dialog.getByText("Advanced parameters").click();
    const delay = dialog.getByLabel("Delay Ms");
    assert.equal(await delay.inputValue(), "300");
    assert.equal(await dialog.getByLabel("Shout").isChecked(), false);
    assert.equal(await dialog.getByLabel("Tone").inputValue(), "plain");
    await delay.fill("-5");
    await dialog.getByRole("button", { name: "Create chat" }).click();
    await dialog.getByText("Must be at least 0").waitFor();
    await dialog.getByText("Must be at least 0").scrollIntoViewIfNeeded();
    await screenshot(page, "04-new-chat-parameters");
    await delay.fill("350");
    const files = dialog.locator("#files");
    // A slow uplink, so that the progress bars are seen moving.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 8_000,
    });
    await files.setInputFiles([`${FIXTURES}report.pdf`, `${FIXTURES}notes.docx`]);
    const bars = dialog.getByRole("progressbar");
    await until(
      async () =>
        await bars.first().evaluate((bar) => (bar as unknown as { value: number }).value > 0.2)
          .catch(() => false),
      "an upload's progress bar moves",
    );
    await screenshot(page, "05-uploading");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await files.setInputFiles({
      name: "photo.png",
      mimeType: "image/png",
      buffer: Buffer.from([137, 80, 78, 71]),
    });
    await dialog.getByText("Not accepted: svc cannot read .png files").waitFor();
    await until(
      async () => (await dialog.locator(".upload.done").count()) === 2,
      "both documents uploaded",
    );
    await screenshot(page, "06-new-chat-ready");
    await dialog.getByRole("button", { name: "Create chat" }).click();
    await dialog.waitFor({ state: "hidden", timeout: 20_000 });
    await page.getByRole("heading", { name: "Report and notes" }).waitFor();
    const pills = page.getByRole("list", { name: "Documents" });
    assert.deepEqual(
      (await pills.getByRole("listitem").allInnerTexts()).map((text) => text.trim()),
      ["report.pdf", "notes.docx"],
    );
    await page.locator("article.message.system").waitFor();
    await until(
      async () => await page.evaluate("document.activeElement.id") === "prompt",
      "the question box has the focus after the chat was created",
    );
    await screenshot(page, "07-chat-created");

    // Every control has a name, and the keyboard gets from the top of the page to the question box.
    const tree = await page.locator("body").ariaSnapshot();
    assert.doesNotMatch(tree, /- (button|textbox|combobox|checkbox|link)( \[[^\]]*\])?:?$/m, tree);
    // Tab from the top of the page reaches every control of the chat, in reading order.
    await page.evaluate("document.body.tabIndex = -1; document.body.focus()");
    const reached: string[] = [];
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press("Tab");
      reached.push(
        await page.evaluate<string>(
          "(e => e.getAttribute('aria-label') || e.id || e.textContent.trim())(document.activeElement)",
        ),
      );
    }
    assert.deepEqual(reached, [
      "Skip to the question box",
      "New chat",
      "Your documents",
      "chat-search",
      "Report and notes2 documents · just now",
      "Log out",
      "API keys",
      "Rename",
      "Add documents",
      "Chat info",
      "Delete chat",
      "Open report.pdf",
      "Open notes.docx",
      "Messages",
      "prompt",
    ]);
    await page.evaluate("document.body.focus()");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate("document.activeElement.id"), "prompt");

    // Ask: Enter sends, and the answer grows chunk by chunk before it ends.
    const prompt = page.getByLabel("Ask about the documents");
    await prompt.fill("What do the documents say?");
    await prompt.press("Shift+Enter");
    await prompt.pressSequentially("Be brief.");
    assert.equal(await prompt.inputValue(), "What do the documents say?\nBe brief.");
    await prompt.press("Enter");
    const stopButton = page.getByRole("button", { name: "Stop" });
    await stopButton.waitFor();
    const lengths: number[] = [];
    let midway = false;
    while (await stopButton.isVisible()) {
      const text = await lastAnswer(page).locator(".markdown").innerText().catch(() => "");
      if (text.length > (lengths.at(-1) ?? 0)) lengths.push(text.length);
      if (!midway && lengths.length >= 2) {
        midway = true;
        await screenshot(page, "08-answer-streaming");
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    assert.ok(
      lengths.length >= 3,
      `the answer should grow at least three times while streaming, grew: ${lengths.join(", ")}`,
    );
    const answer = lastAnswer(page);
    assert.match(await answer.locator("pre code").innerText(), /const answer = 42;/);
    assert.equal(await answer.locator("li").count(), 2);
    assert.deepEqual(await answer.locator("td").allInnerTexts(), [
      "report.pdf",
      "🚀",
      "notes.docx",
      "📚",
    ]);
    assert.match(await page.locator("article.message.user").last().innerText(), /Be brief\./);
    await screenshot(page, "09-answer-done");

    // The sources: rank, document, location and the whole passage.
    await answer.getByRole("button", { name: "Sources (2)" }).click();
    const sources = page.getByRole("complementary", { name: "Sources" });
    await sources.waitFor();
    const first = sources.locator("li.source").first();
    assert.match(await first.innerText(), /1\s+report\.pdf\s+page 1/);
    assert.ok((await first.locator(".passage").innerText()).length > 20);
    await sources.locator("li.source").nth(1).locator("summary").click();
    assert.match(await sources.locator("li.source").nth(1).innerText(), /notes\.docx/);
    await screenshot(page, "10-sources");
    await sources.getByRole("button", { name: "Close sources" }).click();

    // Copy puts the whole answer, as written, on the clipboard.
    await answer.getByRole("button", { name: "Copy", exact: true }).click();
    await answer.getByRole("button", { name: "Copied" }).waitFor();
    assert.equal(await page.evaluate<string>("navigator.clipboard.readText()"), FULL_ANSWER);

    // Stop ends the stream early and says so.
    await prompt.fill("And again, slowly");
    await page.getByRole("button", { name: "Send" }).click();
    await until(
      async () => (await lastAnswer(page).locator(".markdown").innerText()).length > 0,
      "the first chunk of the second answer",
    );
    await stopButton.click();
    await lastAnswer(page).getByText("Stopped. The answer above is incomplete.").waitFor();
    assert.ok((await lastAnswer(page).innerText()).length < FULL_ANSWER.length + 100);
    await screenshot(page, "11-answer-stopped");

    // Chat info: components, parameters, documents.
    await page.getByRole("button", { name: "Chat info" }).click();
    const info = page.getByRole("complementary", { name: "Chat info" });
    await info.waitFor();
    const infoText = await info.innerText();
    for (const expected of ["Test/SlowAssistant", "Svc/DemoSourceStorage", "delay_ms", "350"]) {
      assert.ok(infoText.includes(expected), `chat info shows ${expected}:\n${infoText}`);
    }
    await screenshot(page, "12-chat-info");

    // A reload finds the chat, open, with its messages: the list comes without any, and the
    // open chat's are read on their own.
    const chatReads: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      const url = new URL(request.url());
      if (request.method() === "GET" && url.pathname.startsWith("/chats")) {
        chatReads.push(`${url.pathname}${url.search}`);
      }
    };
    page.on("request", onRequest);
    await page.reload();
    const current = page.getByRole("navigation", { name: "Chats" }).locator("[aria-current=page]");
    await current.waitFor();
    assert.match(await current.innerText(), /Report and notes/);
    await page.locator("article.message.assistant table").waitFor();
    page.off("request", onRequest);
    const chatId = new URL(page.url()).searchParams.get("chat");
    assert.deepEqual(chatReads, ["/chats?messages=false", `/chats/${chatId}`]);
    await screenshot(page, "13-after-reload");

    // At a phone's width the chat list is behind the menu button.
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "14-phone-chat");
    await page.getByRole("button", { name: "Show the chats" }).click();
    await page.getByRole("navigation", { name: "Chats" }).getByRole("button").first().waitFor();
    await screenshot(page, "15-phone-menu");
    await page.keyboard.press("Escape");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "16-phone-dark");
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "17-desktop-dark");
    await page.emulateMedia({ colorScheme: "light" });

    // Delete, after a confirmation.
    await page.getByRole("button", { name: "Delete chat" }).click();
    const confirm = page.getByRole("dialog", { name: 'Delete "Report and notes"?' });
    await confirm.waitFor();
    await screenshot(page, "18-delete-confirm");
    await confirm.getByRole("button", { name: "Delete chat" }).click();
    await page.getByRole("heading", { name: "Ask your documents" }).waitFor();
    assert.equal(
      await page.getByRole("navigation", { name: "Chats" }).getByRole("button").count(),
      0,
    );
    await screenshot(page, "19-deleted");

    // API keys: one is made with a name and shown once, with a copy button; a program uses it; the
    // list shows its name, its first characters, when it was made and last used; it is revoked
    // after a confirmation, and refused at once.
    await page.getByRole("button", { name: "API keys" }).click();
    const keys = page.getByRole("dialog", { name: "API keys" });
    await keys.getByText("No API keys yet.").waitFor();
    await keys.getByLabel("Name").fill("Nightly import");
    await keys.getByRole("button", { name: "Create key" }).click();
    const secret = keys.getByLabel("New API key");
    await secret.waitFor();
    const apiKey = await secret.inputValue();
    assert.match(apiKey, /^svc_[A-Za-z0-9_-]{43}$/);
    await keys.getByRole("button", { name: "Copy key" }).click();
    await keys.getByRole("button", { name: "Copied" }).waitFor();
    assert.equal(await page.evaluate<string>("navigator.clipboard.readText()"), apiKey);
    const item = keys.getByRole("listitem").filter({ hasText: "Nightly import" });
    assert.match(await item.innerText(), new RegExp(`${apiKey.slice(0, 12)}…`));
    assert.match(await item.innerText(), /never used/);
    await screenshot(page, "25-api-key-created");
    const byKey = await fetch(`${svc.apiUrl}/chats`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(byKey.status, 200);
    await byKey.body?.cancel();
    await keys.getByRole("button", { name: "Done" }).click();
    await keys.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "API keys" }).click();
    await keys.getByRole("listitem").filter({ hasText: "last used just now" }).waitFor();
    assert.equal(await keys.getByLabel("New API key").count(), 0);
    assert.ok(!(await page.content()).includes(apiKey), "the key is shown once only");
    await screenshot(page, "26-api-keys-listed");
    await keys.getByRole("button", { name: 'Revoke "Nightly import"' }).click();
    const revoke = page.getByRole("dialog", { name: 'Revoke "Nightly import"?' });
    await revoke.waitFor();
    await screenshot(page, "27-api-key-revoke");
    await revoke.getByRole("button", { name: "Revoke key" }).click();
    await keys.getByText("No API keys yet.").waitFor();
    const revoked = await fetch(`${svc.apiUrl}/chats`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(revoked.status, 401);
    assert.match((await revoked.json()).error.message, /The API key is not valid/);
    await keys.getByRole("button", { name: "Done" }).click();
    await keys.waitFor({ state: "hidden" });

    const { token } = JSON.parse(
      await page.evaluate(() => localStorage.getItem("svc.session") ?? "{}"),
    );
    await page.getByRole("link", { name: "Log out" }).click();
    await page.getByText("You are logged out.").waitFor();
    assert.equal(new URL(page.url()).pathname, "/auth/");
    // The session ended on the server: the token is refused wherever it was copied to.
    const ended = await fetch(`${svc.apiUrl}/chats`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ended.status, 401);
    assert.match((await ended.json()).error.message, /session has ended/);
    await screenshot(page, "20-logged-out");
    await page.goto(svc.url);
    await page.waitForURL(/\/auth\/$/);

    // A token the API refuses (401) leads back to the login page, which says why.
    await page.evaluate(() =>
      localStorage.setItem("svc.session", JSON.stringify({ user: "ada", token: "forged" }))
    );
    await page.goto(svc.url);
    await page.getByText("Your session has ended. Log in again to go on.").waitFor();
    await screenshot(page, "21-session-ended");

    // The only console errors are the refused requests the steps above provoked on purpose.
    assert.deepEqual(
      problems.filter((problem) => !/status of 401/.test(problem)),
      [],
    );
    await context.close();
    const { code, stderr } = await svc.stop();
    assert.equal(code, 0, stderr);
  },
);

browserTest(
  "the web UI logs in with password accounts, and says the API's sentence for a wrong password",
  async (browser) => {
    await using svc = await startSvcUi({ accounts: { grace: "correct horse battery" } });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/auth/`);
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    assert.equal(await page.getByText("demo authentication").count(), 0, "no demo rule shown");
    // The demo's rule does not open an account.
    await logIn(page, "grace", "grace");
    const failure = page.getByRole("alert");
    await failure.waitFor();
    assert.match(await failure.innerText(), /The username or password is wrong/);
    await screenshot(page, "24-password-login-failed");
    await logIn(page, "grace", "correct horse battery");
    await page.getByRole("heading", { name: "Ask your documents" }).waitFor();
    await page.getByRole("link", { name: "Log out" }).click();
    await page.getByText("You are logged out.").waitFor();
    await page.close();
    const { code, stderr } = await svc.stop();
    assert.equal(code, 0, stderr);
  },
);

browserTest("the web UI says in words when the API does not answer", async (browser) => {
  await using svc = await startSvcUi({ noApi: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${svc.url}/auth`);
  assert.equal(new URL(page.url()).pathname, "/auth/");
  await logIn(page, "ada", "ada");
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.match(await alert.innerText(), /svc cannot be reached: it may be restarting/);
  assert.doesNotMatch(await alert.innerText(), /https?:|svc (ui|api)/);
  await screenshot(page, "22-api-down-login");

  // A stored session whose API went away: the workspace says so and offers to try again.
  await page.evaluate(() =>
    localStorage.setItem("svc.session", JSON.stringify({ user: "ada", token: "t" }))
  );
  await page.goto(svc.url);
  await page.getByRole("heading", { name: "The chats cannot be shown" }).waitFor();
  await page.getByRole("button", { name: "Try again" }).waitFor();
  await screenshot(page, "23-api-down-workspace");
  await page.close();
});

browserTest(
  "the web UI signs in at an OpenID provider, and comes back to the chat it was on",
  async (browser) => {
    const apiPort = freePort();
    await using provider = await startProvider([
      `http://127.0.0.1:${apiPort}/auth/oidc/callback`,
    ]);
    await using svc = await startSvcUi({
      apiPort,
      authentication: "svc.deploy.OpenIDConnectAuthentication",
      env: {
        SVC_OIDC_ISSUER: provider.issuer,
        SVC_OIDC_CLIENT_ID: CLIENT.id,
        SVC_OIDC_CLIENT_SECRET: CLIENT.secret,
        SVC_OIDC_USER_CLAIM: "preferred_username",
        SVC_OIDC_NAME: "Test provider",
      },
    });
    const signIn = async (page: Page, password: string) => {
      await page.getByRole("link", { name: "Sign in with Test provider" }).click();
      await page.getByRole("heading", { name: "Sign in to the test provider" }).waitFor();
      await page.getByLabel("Username").fill(ACCOUNT.username);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Continue" }).click();
    };

    const first = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await first.newPage();
    await page.goto(svc.url);
    await page.waitForURL(/\/auth\/$/);
    assert.equal(await page.getByLabel("Password").count(), 0, "no password form of svc's own");
    await screenshot(page, "25-oidc-login");
    // A wrong password is the provider's to refuse; the right one comes back to svc, signed in.
    await signIn(page, "not the password");
    await page.getByText("Wrong username or password").waitFor();
    await page.getByLabel("Username").fill(ACCOUNT.username);
    await page.getByLabel("Password").fill(ACCOUNT.password);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Ask your documents" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/");
    assert.equal(new URL(page.url()).hash, "", "the session left the address");
    await page.locator(".account-name", { hasText: ACCOUNT.username }).waitFor();

    // A chat of the user's, made with the session the sign-in gave.
    const token: string = await page.evaluate(() =>
      JSON.parse(localStorage.getItem("svc.session")!).token
    );
    const created = await fetch(`${svc.apiUrl}/chats`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Signed in elsewhere",
        source_storage: "Svc/DemoSourceStorage",
        assistant: "Svc/DemoAssistant",
        params: {},
        documents: [],
      }),
    });
    assert.equal(created.status, 200);
    const chat: { id: string } = await created.json();
    await first.close();

    // Another browser opens the chat's address: it signs in at the provider and lands in the chat.
    const second = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const other = await second.newPage();
    await other.goto(`${svc.url}/?chat=${chat.id}`);
    await other.waitForURL(/\/auth\/\?next=/);
    await signIn(other, ACCOUNT.password);
    await other.getByRole("heading", { name: "Signed in elsewhere" }).waitFor();
    assert.equal(new URL(other.url()).searchParams.get("chat"), chat.id);
    await screenshot(other, "26-oidc-back-in-chat");

    // Logging out ends the session on the server too.
    const session: string = await other.evaluate(() =>
      JSON.parse(localStorage.getItem("svc.session")!).token
    );
    await other.getByRole("link", { name: "Log out" }).click();
    await other.getByText("You are logged out.").waitFor();
    await other.getByRole("link", { name: "Sign in with Test provider" }).waitFor();
    const ended = await fetch(`${svc.apiUrl}/chats`, {
      headers: { authorization: `Bearer ${session}` },
    });
    assert.equal(ended.status, 401);
    await ended.body?.cancel();
    await second.close();
    const { code, stderr } = await svc.stop();
    assert.equal(code, 0, stderr);
  },
);

browserTest(
  "the web UI behind a trusted proxy is the user the proxy names, with no form to fill",
  async (browser) => {
    const apiPort = freePort();
    // A proxy on loopback that has signed ada in: it names her on every request to the API.
    const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set("x-forwarded-user", "ada");
      try {
        const answer = await fetch(`http://127.0.0.1:${apiPort}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body: request.body,
          redirect: "manual",
        });
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
      } catch {
        return new Response(null, { status: 502 });
      }
    });
    try {
      await using svc = await startSvcUi({
        apiPort,
        authentication: "svc.deploy.TrustedProxyAuthentication",
        env: {
          SVC_API_TRUSTED_PROXIES: '["127.0.0.1"]',
          SVC_API_URL: `http://127.0.0.1:${proxy.addr.port}`,
        },
      });
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(svc.url);
      await page.getByRole("heading", { name: "Ask your documents" }).waitFor();
      await page.locator(".account-name", { hasText: "ada" }).waitFor();
      assert.equal(new URL(page.url()).pathname, "/");

      // Logging out ends svc's session and stays out until the user goes on.
      await page.getByRole("link", { name: "Log out" }).click();
      await page.getByText("You are logged out.").waitFor();
      assert.equal(await page.getByLabel("Password").count(), 0, "no password form");
      await screenshot(page, "27-proxy-logged-out");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByRole("heading", { name: "Ask your documents" }).waitFor();
      await page.close();
      const { code, stderr } = await svc.stop();
      assert.equal(code, 0, stderr);
    } finally {
      await proxy.shutdown();
    }
  },
);
