/**
 * The web UI in daily use, in Chromium against a real `svc ui`: dialogs give
 * the focus back to what opened them, a long chat scrolls to the question
 * asked and offers "Jump to latest", a failed answer says what happened in
 * plain words with the server's sentence behind "Details", and the page
 * reconnects by itself when the API comes back. Each state is checked by axe
 * at 1440 and 390 px, light and dark.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { freePort } from "../_process.ts";
import { assertAccessible } from "./_axe.ts";
import {
  type ApiUser,
  apiUser,
  browserTest,
  openAs,
  screenshot,
  startSvcApi,
  startSvcUi,
  until,
} from "./_browser.ts";
import { FAILS_ONCE } from "./slow_assistant.ts";

/** The visible text of the element that has the focus. */
function focused(page: Page): Promise<string> {
  return page.evaluate("document.activeElement?.textContent?.trim() ?? ''") as Promise<string>;
}

/** Checks the page with axe in light and dark, and saves a screenshot of each. */
async function lightAndDark(page: Page, name: string): Promise<void> {
  await assertAccessible(page, `(${name}, light)`);
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: "dark" });
  await assertAccessible(page, `(${name}, dark)`);
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: "light" });
}

/** A prepared chat of the slow test assistant over one note, with `questions` answered. */
async function chatWith(user: ApiUser, name: string, questions: number): Promise<string> {
  const note = await user.upload("notes.md", "# Notes\n\nThe winter loaf has cardamom.");
  const chat = await user.post<{ id: string }>("/chats", {
    name,
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/SlowAssistant",
    params: { delay_ms: 0 },
    documents: [note],
  });
  await user.post(`/chats/${chat.id}/prepare`);
  for (let i = 1; i <= questions; i++) {
    await user.post(`/chats/${chat.id}/answer`, { prompt: `Question number ${i}?` });
  }
  return chat.id;
}

browserTest(
  "dialogs give the focus back to what opened them; a long chat scrolls to the question asked and offers Jump to latest",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const chatId = await chatWith(ada, "Long chat", 6);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openAs(page, `${svc.url}/?chat=${chatId}`, ada);
    await page.getByRole("heading", { name: "Long chat" }).waitFor();
    const header = page.locator(".chat-header");

    // Escape closes each dialog, and the focus goes back to the button that opened it.
    for (
      const [button, dialog] of [
        ["Add documents", 'Add documents to "Long chat"'],
        ["Delete chat", 'Delete "Long chat"?'],
      ]
    ) {
      await header.getByRole("button", { name: button }).click();
      await page.getByRole("dialog", { name: dialog }).waitFor();
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "detached" });
      await until(async () => await focused(page) === button, `the focus is back on ${button}`);
    }
    const newChat = page.locator(".sidebar").getByRole("button", { name: "New chat" });
    await newChat.click();
    await page.getByRole("dialog", { name: "New chat" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await until(
      async () => await newChat.evaluate((button) => button === button.ownerDocument.activeElement),
      "the focus is back on New chat",
    );

    // Up the conversation, "Jump to latest" takes the reader to its end.
    const messages = page.getByRole("region", { name: "Messages" });
    const jump = page.getByRole("button", { name: "Jump to latest" });
    assert.equal(await jump.count(), 0, "no jump at the end of the chat");
    await messages.evaluate((element) => element.scrollTop = 0);
    await jump.waitFor();
    await lightAndDark(page, "70-jump-to-latest");
    await jump.click();
    await jump.waitFor({ state: "detached" });
    const atEnd = () =>
      messages.evaluate((element) =>
        element.scrollHeight - element.scrollTop - element.clientHeight < 2
      );
    assert.ok(await atEnd(), "the chat is at its end");

    // A question asked from up the conversation is scrolled to, and its answer followed.
    await messages.evaluate((element) => element.scrollTop = 0);
    await jump.waitFor();
    await page.locator("#prompt").fill("Where is the new question?");
    await page.keyboard.press("Enter");
    const question = page.locator("article.message.user").last();
    await question.getByText("Where is the new question?").waitFor();
    const answer = page.locator("article.message.assistant").last();
    await until(async () => (await answer.getAttribute("aria-busy")) === "false", "answered");
    await until(atEnd, "the answer is followed to its end");
    await jump.waitFor({ state: "detached" });
    const box = (await messages.boundingBox())!;
    const asked = (await answer.boundingBox())!;
    assert.ok(asked.y < box.y + box.height, "the answer is in view");

    // A failed answer keeps its reason after a reload, as the API stored it.
    await page.locator("#prompt").fill(FAILS_ONCE);
    await page.keyboard.press("Enter");
    const failed = page.locator("article.message.assistant").last().locator(".failure-summary");
    await failed.getByText("The answer failed: The test model is overloaded").waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Long chat" }).waitFor();
    await failed.getByText("The answer failed: The test model is overloaded").waitFor();

    // On a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await messages.evaluate((element) => element.scrollTop = 0);
    await jump.waitFor();
    await lightAndDark(page, "71-jump-to-latest-phone");
    await page.close();
  },
);

browserTest(
  "a failed answer says what happened in plain words, the server's sentence behind Details; the page reconnects by itself when the API is back",
  async (browser) => {
    // The model's server answers while the chat is made, then stops.
    const port = freePort();
    const serveModel = () =>
      Deno.serve(
        { hostname: "127.0.0.1", port, onListen() {} },
        () => Response.json({ data: [{ id: "gone" }] }),
      );
    let model = serveModel();
    await using svc = await startSvcUi({
      noApi: true,
      components: [
        `source_storages = ["svc.source_storages.SvcDemoSourceStorage"]`,
        `assistants = ["svc.assistants.OpenAICompatible"]`,
      ],
      env: {
        SVC_OPENAI_COMPATIBLE_URL: `http://127.0.0.1:${port}/v1`,
        SVC_OPENAI_COMPATIBLE_MODEL: "gone",
      },
    });
    let api = await startSvcApi(svc);
    try {
      const ada = await apiUser(svc.apiUrl, "ada");
      const note = await ada.upload("notes.md", "# Notes\n\nThe winter loaf has cardamom.");
      const chat = await ada.post<{ id: string }>("/chats", {
        name: "Bakery",
        source_storage: "Svc/DemoSourceStorage",
        assistant: "OpenAICompatible/gone",
        params: {},
        documents: [note],
      });
      await ada.post(`/chats/${chat.id}/prepare`);
      await model.shutdown();

      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await openAs(page, `${svc.url}/?chat=${chat.id}`, ada);
      await page.getByRole("heading", { name: "Bakery" }).waitFor();
      await page.locator("#prompt").fill("What is in the winter loaf?");
      await page.keyboard.press("Enter");
      const failure = page.locator("article.message.assistant").last().locator(".message-error");
      await failure.waitFor({ timeout: 30_000 });
      assert.equal(
        await failure.locator(".failure-summary").innerText(),
        "The answer failed: The model server did not answer",
      );
      const details = failure.locator("details");
      assert.equal(await details.getAttribute("open"), null, "the details are folded");
      await details.locator("summary").click();
      assert.match(await details.innerText(), new RegExp(`127\\.0\\.0\\.1:${port}`));
      await lightAndDark(page, "72-answer-failed-model-server");

      // The API goes away: the page says so in words, and tries again by itself.
      await api.stop();
      await page.reload();
      await page.getByRole("heading", { name: "The chats cannot be shown" }).waitFor();
      const card = page.locator(".state-card");
      assert.match(await card.innerText(), /svc cannot be reached/);
      assert.doesNotMatch(
        await card.locator(".failure-summary").innerText(),
        /https?:|svc (ui|api)/,
        "no address nor command in the main text",
      );
      const banner = page.locator(".connection");
      await banner.getByText(/Trying again in \d+ s/).waitFor();
      await lightAndDark(page, "73-api-down-reconnecting");
      await page.setViewportSize({ width: 390, height: 844 });
      await lightAndDark(page, "74-api-down-reconnecting-phone");
      await page.setViewportSize({ width: 1440, height: 900 });

      // Back (svc checks the model's server as it starts): the page reads the chats again by itself.
      model = serveModel();
      api = await startSvcApi(svc);
      await page.getByRole("heading", { name: "Bakery" }).waitFor({ timeout: 60_000 });
      await banner.waitFor({ state: "detached" });
      await page.close();
    } finally {
      await api.stop();
      await model.shutdown().catch(() => {});
    }
  },
);
