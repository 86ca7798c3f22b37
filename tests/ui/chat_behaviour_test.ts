/**
 * The web UI where a chat must behave, in Chromium against a real `svc ui`:
 * preparing with a bar per document, Cancel and unreadable documents in the
 * new chat dialog, stop and reload, regenerate, retry after a failure,
 * rename and the title from the first question, documents added later, the
 * chat search, parameters that need a fix or were cleared, the API down, and
 * the phone's header. Each state saves a screenshot under tests/ui/screenshots/.
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "npm:playwright-core@1.65.1";
import { FIXTURES } from "../test_utils.ts";
import {
  type ApiUser,
  apiUser,
  browserTest,
  openAs,
  screenshot,
  startSvcUi,
  until,
} from "./_browser.ts";
import { FAILS_ONCE } from "./slow_assistant.ts";

/** The user's chats as the API lists them. */
async function listChats(
  apiUrl: string,
  user: ApiUser,
): Promise<{ id: string; metadata: { name: string } }[]> {
  const response = await fetch(`${apiUrl}/chats?messages=false`, {
    headers: { authorization: `Bearer ${user.token}` },
  });
  return await response.json();
}

/** The roles of the messages on the page, in order: "user", "assistant", "system". */
async function roles(page: Page): Promise<string[]> {
  return await page.locator("article.message").evaluateAll((articles) =>
    articles.map((article) => article.classList[1]!)
  );
}

function textFile(name: string, text: string) {
  return { name, mimeType: "text/plain", buffer: Buffer.from(text) };
}

browserTest(
  "the new chat dialog shows a bar per document while preparing; Cancel makes no chat; an unreadable document is named there to replace",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await openAs(page, svc.url, ada);
    await page.getByRole("heading", { name: "Ask your documents" }).waitFor();

    await page.getByRole("button", { name: "New chat" }).first().click();
    const dialog = page.getByRole("dialog", { name: "New chat" });
    await dialog.getByLabel("Assistant").selectOption("Svc/DemoAssistant");
    await dialog.getByLabel("Source storage").selectOption("Test/SlowStorage");
    await dialog.locator("#files").setInputFiles([
      textFile("apples.md", "# Apples\n\nApples are red."),
      textFile("pears.md", "# Pears\n\nPears are green."),
    ]);
    await until(async () => (await dialog.locator(".upload.done").count()) === 2, "uploaded");
    await dialog.getByRole("button", { name: "Create chat" }).click();

    // A bar per document, each moving on its own.
    const apples = dialog.getByRole("progressbar", { name: "Preparing apples.md" });
    const pears = dialog.getByRole("progressbar", { name: "Preparing pears.md" });
    await apples.waitFor();
    await pears.waitFor();
    await until(
      async () =>
        Number(await apples.evaluate((bar) => (bar as unknown as { value: number }).value)) > 0.5,
      "the first document's bar moves",
    );
    assert.equal(await pears.evaluate((bar) => (bar as unknown as { value: number }).value), 0);
    await dialog.getByText("1 page read · indexing…").waitFor();
    await screenshot(page, "40-preparing-progress");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "40b-preparing-progress-dark");
    await page.emulateMedia({ colorScheme: "light" });

    // Cancel stops preparing, and no chat is left behind, as the dialog said.
    assert.match(await dialog.innerText(), /Cancel stops this, and no chat is made/);
    await dialog.getByRole("button", { name: "Cancel preparing" }).click();
    await dialog.getByText("Preparing was cancelled: no chat was made").waitFor();
    await until(async () => (await listChats(svc.apiUrl, ada)).length === 0, "no chat is kept");
    assert.equal(
      await page.getByRole("navigation", { name: "Chats" }).getByRole("listitem").count(),
      0,
    );
    await screenshot(page, "41-preparing-cancelled");

    // A document svc cannot read is named in the dialog as soon as it is read, before Create.
    await dialog.getByLabel("Source storage").selectOption("Svc/DemoSourceStorage");
    await dialog.locator("#files").setInputFiles({
      name: "broken.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from("this is no PDF at all"),
    });
    const broken = dialog.locator(".upload.unreadable");
    await broken.waitFor();
    assert.match(await broken.innerText(), /Cannot read "broken\.pdf": the file is not a PDF/);
    assert.doesNotMatch(await broken.innerText(), /Uploaded/);
    assert.equal(await dialog.locator(".upload.done").count(), 2);
    await screenshot(page, "42-document-unreadable");
    // Creating is refused until it is removed or replaced, and makes no chat.
    await dialog.getByRole("button", { name: "Create chat" }).click();
    await dialog.getByText("Remove or replace the documents that cannot be read").waitFor();
    assert.equal((await listChats(svc.apiUrl, ada)).length, 0, "no dead chat");
    await dialog.getByLabel("Replace broken.pdf").setInputFiles(`${FIXTURES}report.pdf`);
    await until(async () => (await dialog.locator(".upload.done").count()) === 3, "replaced");
    assert.equal(await dialog.locator(".upload.unreadable").count(), 0);
    await dialog.getByRole("button", { name: "Create chat" }).click();
    await dialog.waitFor({ state: "hidden", timeout: 20_000 });

    // Left without a name, the chat is "New chat" until its first question names it.
    await page.getByRole("heading", { name: "New chat" }).waitFor();
    assert.deepEqual(
      (await page.getByRole("list", { name: "Documents" }).getByRole("listitem").allInnerTexts())
        .map((text) => text.trim()),
      ["apples.md", "pears.md", "report.pdf"],
    );
    const prompt = page.getByLabel("Ask about the documents");
    await prompt.fill("Which fruit is red according to the notes?");
    await prompt.press("Enter");
    await page.getByRole("heading", { name: "Which fruit is red according to the notes?" })
      .waitFor();
    const link = page.getByRole("navigation", { name: "Chats" }).getByRole("button").first();
    assert.match(await link.innerText(), /Which fruit is red according to the notes\?/);
    assert.deepEqual((await listChats(svc.apiUrl, ada)).map((chat) => chat.metadata.name), [
      "Which fruit is red according to the notes?",
    ]);
    await screenshot(page, "43-titled-from-question");
    await page.close();
  },
);

browserTest(
  "a chat keeps a stopped answer after reload, regenerates, retries a failure with the question kept, renames, adds documents and is found by search",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const notes = await ada.upload("notes.md", "# Notes\n\nThe meeting is on Friday.");
    const chat = await ada.post<{ id: string }>("/chats", {
      name: "Meeting notes",
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Test/SlowAssistant",
      params: { delay_ms: 150 },
      documents: [notes],
    });
    await ada.post(`/chats/${chat.id}/prepare`);
    for (const name of ["Budget 2027", "Holiday plans"]) {
      await ada.post("/chats", {
        name,
        source_storage: "Svc/DemoSourceStorage",
        assistant: "Svc/DemoAssistant",
        params: {},
        documents: [notes],
      });
    }
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await openAs(page, `${svc.url}/?chat=${chat.id}`, ada);
    await page.getByRole("heading", { name: "Meeting notes" }).waitFor();
    const prompt = page.getByLabel("Ask about the documents");
    const answers = page.locator("article.message.assistant");

    // Regenerate writes the last answer again, in its place.
    await prompt.fill("When is the meeting?");
    await prompt.press("Enter");
    const regenerate = page.getByRole("button", { name: "Regenerate" });
    await regenerate.waitFor({ timeout: 20_000 });
    const firstTime = await answers.last().locator("time").getAttribute("datetime");
    await regenerate.click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await regenerate.waitFor({ timeout: 20_000 });
    assert.equal(await answers.count(), 1);
    assert.notEqual(await answers.last().locator("time").getAttribute("datetime"), firstTime);
    assert.deepEqual(await roles(page), ["system", "user", "assistant"]);

    // Stop keeps the answer as far as it was written, marked stopped, also after a reload.
    await prompt.fill("And who comes?");
    await prompt.press("Enter");
    await until(
      async () => (await answers.last().locator(".markdown").innerText()).length > 0,
      "the first chunk",
    );
    await page.getByRole("button", { name: "Stop" }).click();
    await answers.last().getByText("Stopped. The answer above is incomplete.").waitFor();
    const partial = await answers.last().locator(".markdown").innerText();
    await until(async () => {
      const stored = await (await fetch(`${svc.apiUrl}/chats/${chat.id}`, {
        headers: { authorization: `Bearer ${ada.token}` },
      })).json();
      return stored.messages.at(-1).status === "stopped";
    }, "the stopped answer is stored");
    await page.reload();
    await answers.last().getByText("Stopped. The answer above is incomplete.").waitFor();
    // The server may have had a chunk or two more by the time it heard of the stop.
    const kept = await answers.last().locator(".markdown").innerText();
    assert.ok(kept.startsWith(partial), `${JSON.stringify(kept)} after ${JSON.stringify(partial)}`);
    assert.deepEqual(await roles(page), ["system", "user", "assistant", "user", "assistant"]);
    await screenshot(page, "44-stopped-after-reload");

    // A failed answer offers Retry, and the question stays in the box.
    await prompt.fill(FAILS_ONCE);
    await prompt.press("Enter");
    await answers.last().getByText("The answer failed: The test model is overloaded").waitFor({
      timeout: 20_000,
    });
    assert.equal(await prompt.inputValue(), FAILS_ONCE);
    await screenshot(page, "45-answer-failed-retry");
    await answers.last().getByRole("button", { name: "Retry" }).click();
    await page.getByRole("button", { name: "Regenerate" }).waitFor({ timeout: 20_000 });
    assert.equal(await prompt.inputValue(), "", "the retried question left the box");
    assert.match(await answers.last().innerText(), /const answer = 42;/);
    await page.reload();
    await answers.last().locator("table").waitFor();
    const order = await roles(page);
    assert.deepEqual(order, [
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    for (let i = 1; i < order.length; i++) {
      assert.ok(
        !(order[i] === "user" && order[i - 1] === "user"),
        `two questions in a row: ${order}`,
      );
    }

    // Rename in place: Enter saves, and the list and a reload show the new name.
    await page.getByRole("button", { name: "Rename" }).click();
    const field = page.getByLabel("Chat name");
    assert.equal(await field.inputValue(), "Meeting notes");
    await field.fill("Friday meeting");
    await screenshot(page, "46-rename");
    await field.press("Enter");
    await page.getByRole("heading", { name: "Friday meeting" }).waitFor();
    const list = page.getByRole("navigation", { name: "Chats" });
    await list.getByRole("button", { name: /Friday meeting/ }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Friday meeting" }).waitFor();

    // Documents added later: only they are prepared, with their own bar.
    await page.getByRole("button", { name: "Add documents" }).click();
    const adding = page.getByRole("dialog", { name: 'Add documents to "Friday meeting"' });
    await adding.locator("#files").setInputFiles([textFile("agenda.md", "# Agenda\n\nBudget.")]);
    await until(async () => (await adding.locator(".upload.done").count()) === 1, "uploaded");
    await screenshot(page, "47-add-documents");
    await adding.getByRole("button", { name: "Add documents" }).click();
    await adding.waitFor({ state: "hidden", timeout: 20_000 });
    assert.deepEqual(
      (await page.getByRole("list", { name: "Documents" }).getByRole("listitem").allInnerTexts())
        .map((text) => text.trim()),
      ["notes.md", "agenda.md"],
    );

    // The search finds chats by name or document, and says when none matches.
    const search = page.getByLabel("Search the chats");
    await search.fill("budget");
    assert.deepEqual(
      (await list.getByRole("listitem").allInnerTexts()).map((text) => text.split("\n")[0]),
      ["Budget 2027"],
    );
    await search.fill("agenda");
    assert.deepEqual(
      (await list.getByRole("listitem").allInnerTexts()).map((text) => text.split("\n")[0]),
      ["Friday meeting"],
    );
    await search.fill("nothing like this");
    await list.getByText('No chat matches "nothing like this".').waitFor();
    await screenshot(page, "48-search-no-match");
    await search.fill("");
    assert.equal(await list.getByRole("listitem").count(), 3);

    // The same chat, its answers' actions included, dark and on a phone.
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "54-desktop-dark-chat-actions");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Regenerate" }).waitFor();
    await screenshot(page, "55-phone-dark-chat-actions");
    await page.emulateMedia({ colorScheme: "light" });
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByLabel("Chat name").waitFor();
    await screenshot(page, "56-phone-rename");
    await page.close();
  },
);

browserTest(
  "a parameter to fix takes the focus in view; a cleared one takes its default back and says so",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
    // "New chat" pressed while the components are still on their way opens the dialog once they come.
    const clicked = Promise.withResolvers<void>();
    await page.route("**/components", async (route) => {
      await clicked.promise;
      await route.continue();
    });
    await openAs(page, svc.url, ada);
    await page.getByRole("button", { name: "New chat" }).first().click();
    clicked.resolve();
    const dialog = page.getByRole("dialog", { name: "New chat" });
    await dialog.getByText("Advanced parameters").click();
    const delay = dialog.getByLabel("Delay Ms");
    await delay.fill("-5");
    // The section is closed again, and the dialog scrolled to its end, as a person might.
    await dialog.getByText("Advanced parameters").click();
    await dialog.getByRole("button", { name: "Create chat" }).click();
    await until(
      async () => await page.evaluate("document.activeElement?.id") === "param-delay_ms",
      "the field to fix has the focus",
    );
    const box = (await delay.boundingBox())!;
    assert.ok(
      box.y >= 0 && box.y + box.height <= 640,
      `the field is in view: ${JSON.stringify(box)}`,
    );
    await dialog.getByText("Must be at least 0").waitFor();
    await screenshot(page, "49-parameter-focused");

    // Cleared, a field takes its default back, shown and said.
    const tone = dialog.getByLabel("Tone");
    await tone.fill("");
    await tone.press("Tab");
    assert.equal(await tone.inputValue(), "plain");
    await dialog.getByText("Left empty: the default, plain, is used").waitFor();
    await delay.fill("");
    await delay.press("Tab");
    assert.equal(await delay.inputValue(), "300");
    await dialog.getByText("Left empty: the default, 300, is used").waitFor();
    assert.equal(await dialog.getByText("Must be at least 0").count(), 0);
    await screenshot(page, "50-parameter-default-restored");
    await page.close();
  },
);

browserTest(
  "on a phone the chat's name shows once and its header stays small; a long name ends in an ellipsis",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const notes = await ada.upload("notes.md", "# Notes\n");
    const name = "A very long chat name about the quarterly procurement review of the northern " +
      "region and its suppliers";
    const chat = await ada.post<{ id: string }>("/chats", {
      name,
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [notes],
    });
    await ada.post(`/chats/${chat.id}/prepare`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await openAs(page, `${svc.url}/?chat=${chat.id}`, ada);
    await page.getByRole("heading", { name }).waitFor();

    // Cut at the end with an ellipsis, the whole name in its tooltip.
    // Page code as text: the tests are type-checked without the browser's globals.
    const cut = await page.evaluate(`(() => {
      const e = document.querySelector(".chat-link-text");
      return { overflow: getComputedStyle(e).textOverflow, truncated: e.scrollWidth > e.clientWidth };
    })()`);
    assert.deepEqual(cut, { overflow: "ellipsis", truncated: true });
    assert.equal(await page.locator(".chat-link-name").first().getAttribute("title"), name);
    await screenshot(page, "51-long-name-ellipsis");

    await page.setViewportSize({ width: 390, height: 844 });
    // The chat list slides away into its drawer.
    await until(
      async () =>
        await page.locator(".sidebar").evaluate((e) => e.getBoundingClientRect().right <= 0),
      "the drawer is closed",
    );
    // Shown on screen: the drawer of chats is off to the left until opened.
    const visible = await page.evaluate(`[...document.querySelectorAll("body *")]
      .filter((e) => e.children.length === 0 && e.textContent.trim() === ${JSON.stringify(name)})
      .filter((e) => {
        const box = e.getBoundingClientRect();
        return box.width > 1 && box.height > 1 && box.right > 0 && box.left < innerWidth &&
          getComputedStyle(e).visibility !== "hidden";
      })
      .map((e) => e.className)`);
    assert.deepEqual(visible, ["topbar-title"], "the chat's name shows once on a phone");
    const header = await page.evaluate<number>(
      'document.querySelector(".chat-header").getBoundingClientRect().bottom',
    );
    assert.ok(header <= 140, `the headers take ${header} of 844 px`);
    // Still a heading for screen readers.
    assert.equal(await page.getByRole("heading", { name }).count(), 1);
    await screenshot(page, "52-phone-header");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "52b-phone-header-dark");
    await page.close();
  },
);

browserTest(
  "with the API down the chat list says nothing of chats, and New chat says why it cannot start",
  async (browser) => {
    await using svc = await startSvcUi({ noApi: true });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/auth/`);
    await page.evaluate(() =>
      localStorage.setItem("svc.session", JSON.stringify({ user: "ada", token: "t" }))
    );
    await page.goto(svc.url);
    await page.getByRole("heading", { name: "The chats cannot be shown" }).waitFor();
    const list = page.getByRole("navigation", { name: "Chats" });
    assert.equal(await list.getByText("No chats yet.").count(), 0);
    await list.getByText("Not available until svc answers.").waitFor();
    await page.locator(".sidebar").getByRole("button", { name: "New chat" }).click();
    const notice = page.locator(".notice").filter({ hasText: "A new chat needs" });
    await notice.waitFor();
    assert.match(await notice.innerText(), /svc cannot be reached/);
    await screenshot(page, "53-api-down-new-chat");
    await page.close();
  },
);
