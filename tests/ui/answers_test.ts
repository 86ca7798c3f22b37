/**
 * Answers that outlive their page and keep their history, in Chromium
 * against a real `svc ui`: a reloaded page shows the answer still being
 * written and follows it to its end, Stop stops it on the server, Regenerate
 * keeps the earlier answer (‹ 1/2 ›), a question asked again in other words
 * keeps the earlier conversation, and an answer is rated with a note. Checked
 * by axe at 1440 and 390 px, light and dark.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { assertAccessible } from "./_axe.ts";
import {
  type ApiUser,
  apiUser,
  browserTest,
  openAs,
  screenshot,
  startSvcUi,
  until,
} from "./_browser.ts";
import { HOLDS } from "./slow_assistant.ts";

interface StoredMessage {
  id: string;
  role: string;
  content: string;
  status?: string;
  versions?: StoredMessage[];
  feedback?: { rating: string; note?: string };
}

/** A prepared chat of the slow test assistant over one note. */
async function chatWith(user: ApiUser, name: string, delay: number): Promise<string> {
  const note = await user.upload("notes.md", "# Notes\n\nThe winter loaf has cardamom.");
  const chat = await user.post<{ id: string }>("/chats", {
    name,
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/SlowAssistant",
    params: { delay_ms: delay },
    documents: [note],
  });
  await user.post(`/chats/${chat.id}/prepare`);
  return chat.id;
}

async function stored(apiUrl: string, user: ApiUser, chatId: string): Promise<StoredMessage[]> {
  const response = await fetch(`${apiUrl}/chats/${chatId}`, {
    headers: { authorization: `Bearer ${user.token}` },
  });
  return (await response.json()).messages;
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

browserTest(
  "a reloaded page shows the answer still being written and follows it to its end; Stop stops it on the server",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const chatId = await chatWith(ada, "Bakery", 400);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openAs(page, `${svc.url}/?chat=${chatId}`, ada);
    await page.getByRole("heading", { name: "Bakery" }).waitFor();

    await page.locator("#prompt").fill("What is in the winter loaf?");
    await page.keyboard.press("Enter");
    const answer = () => page.locator("article.message.assistant").last();
    await answer().getByText("Here is what the documents say").waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Bakery" }).waitFor();
    // The answer goes on after the reload, shown as it is written.
    await until(async () => (await answer().getAttribute("aria-busy")) === "true", "streaming");
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await lightAndDark(page, "83-answer-after-reload");
    await answer().getByText("notes.docx").waitFor({ timeout: 30_000 });
    await until(async () => (await answer().getAttribute("aria-busy")) === "false", "complete");
    const done = (await stored(svc.apiUrl, ada, chatId)).at(-1)!;
    assert.equal(done.status, undefined, "stored complete");
    assert.match(done.content, /notes\.docx/);

    // Stop, after a reload, stops the answer on the server.
    await page.locator("#prompt").fill(HOLDS);
    await page.keyboard.press("Enter");
    await answer().getByText("Here is what the documents say").waitFor();
    await page.reload();
    await until(async () => (await answer().getAttribute("aria-busy")) === "true", "streaming");
    await page.setViewportSize({ width: 390, height: 844 });
    await lightAndDark(page, "84-answer-after-reload-phone");
    await page.getByRole("button", { name: "Stop" }).click();
    await answer().getByText("Stopped.").waitFor();
    await until(
      async () => (await stored(svc.apiUrl, ada, chatId)).at(-1)!.status === "stopped",
      "the answer is stored as stopped",
    );
    assert.equal(
      (await stored(svc.apiUrl, ada, chatId)).at(-1)!.content,
      "Here is what the documents say:\n\n",
    );
    await page.close();
  },
);

browserTest(
  "Regenerate keeps the earlier answer, a question asked again keeps the earlier conversation, an answer is rated with a note",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const chatId = await chatWith(ada, "Bakery", 0);
    await ada.post(`/chats/${chatId}/answer`, { prompt: "What is in the winter loaf?" });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openAs(page, `${svc.url}/?chat=${chatId}`, ada);
    await page.getByRole("heading", { name: "Bakery" }).waitFor();
    const answer = () => page.locator("article.message.assistant").last();

    // Regenerate: two versions, the latest shown, the earlier one a click away.
    await answer().getByRole("button", { name: "Regenerate" }).click();
    const answerVersions = answer().getByRole("group", { name: "Versions of the answer" });
    await answerVersions.getByText("2/2").waitFor();
    await answerVersions.getByRole("button", { name: "Earlier answer" }).click();
    await answerVersions.getByText("1/2").waitFor();
    const messages = await stored(svc.apiUrl, ada, chatId);
    assert.equal(messages.at(-1)!.versions?.length, 2);

    // Rated good, with a note, on the version shown.
    await answer().getByRole("button", { name: "Good answer" }).click();
    await until(
      async () =>
        (await answer().getByRole("button", { name: "Good answer" }).getAttribute(
          "aria-pressed",
        )) === "true",
      "rated",
    );
    await answer().getByLabel("What was good or bad").fill("Names the spice.");
    await answer().getByRole("button", { name: "Save note" }).click();
    await until(async () => {
      const last = (await stored(svc.apiUrl, ada, chatId)).at(-1)!;
      return last.versions?.[0]?.feedback?.note === "Names the spice.";
    }, "the note is stored with the first version");
    await lightAndDark(page, "85-answer-versions-rated");

    // The question asked again in other words: a new branch, the old one kept.
    const question = page.locator("article.message.user").last();
    await question.getByRole("button", { name: "Edit" }).click();
    await question.getByLabel("The question in other words").fill("Which spice is in the loaf?");
    await question.getByRole("button", { name: "Ask again" }).click();
    const asked = page.locator("article.message.user").last();
    await asked.getByText("Which spice is in the loaf?").waitFor();
    await until(async () => (await answer().getAttribute("aria-busy")) === "false", "answered");
    const questionVersions = asked.getByRole("group", { name: "Versions of the question" });
    await questionVersions.getByText("2/2").waitFor();
    await questionVersions.getByRole("button", { name: "Earlier question" }).click();
    await page.getByText("An earlier wording of the question").waitFor();
    await page.locator("article.message.user").last().getByText("What is in the winter loaf?")
      .waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await lightAndDark(page, "86-question-versions-phone");
    await page.close();
  },
);
