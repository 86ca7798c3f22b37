/**
 * The tools around a chat, in Chromium against a real `svc ui`: the search
 * finds chats by their messages and opens them at the message, a code block
 * copies itself, a chat exports as Markdown with its sources and as JSON,
 * and a file svc cannot read is named as soon as it is uploaded. Checked by
 * axe at 1440 and 390 px, light and dark.
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
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

/** A prepared chat of the slow test assistant over one note, its questions answered. */
async function chatWith(user: ApiUser, name: string, prompts: string[]): Promise<string> {
  const note = await user.upload(`${name.toLowerCase()}.md`, `# ${name}\n\nNotes on ${name}.`);
  const chat = await user.post<{ id: string }>("/chats", {
    name,
    source_storage: "Svc/DemoSourceStorage",
    assistant: "Test/SlowAssistant",
    params: { delay_ms: 0 },
    documents: [note],
  });
  await user.post(`/chats/${chat.id}/prepare`);
  for (const prompt of prompts) await user.post(`/chats/${chat.id}/answer`, { prompt });
  return chat.id;
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
  "the search finds chats by their messages, a code block copies itself, a chat exports as Markdown and JSON, an unreadable file is named at once",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const bakery = await chatWith(ada, "Bakery", [
      "Which spice is in the winter loaf?",
      "When does the shop open?",
    ]);
    await chatWith(ada, "Garden", ["When are the tomatoes harvested?"]);
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      acceptDownloads: true,
    });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const page = await context.newPage();
    await openAs(page, svc.url, ada);
    await page.getByRole("heading", { name: "Garden" }).waitFor();

    // The words are in a message of Bakery, not in any chat's name.
    const list = page.getByRole("navigation", { name: "Chats" });
    await page.getByLabel("Search the chats").fill("spice winter");
    const result = list.getByRole("button", { name: /Bakery/ });
    await result.locator(".chat-link-snippet mark").first().waitFor();
    assert.equal(await list.getByRole("button", { name: /Garden/ }).count(), 0);
    assert.deepEqual(
      await result.locator(".chat-link-snippet mark").allInnerTexts(),
      ["spice", "winter"],
    );
    await lightAndDark(page, "78-search-messages");
    await result.click();
    await page.getByRole("heading", { name: "Bakery" }).waitFor();
    const found = page.locator("article.message.found");
    await found.waitFor();
    assert.match(await found.innerText(), /Which spice is in the winter loaf\?/);
    const box = (await page.getByRole("region", { name: "Messages" }).boundingBox())!;
    const at = (await found.boundingBox())!;
    assert.ok(at.y >= box.y && at.y + at.height <= box.y + box.height, "the message is in view");

    // The code block of an answer copies just its code.
    const answer = page.locator("article.message.assistant").last();
    const copy = answer.getByRole("button", { name: "Copy code" });
    await copy.click();
    await answer.getByRole("button", { name: "Copied the code" }).waitFor();
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), "const answer = 42;\n");

    // Chat info exports the chat: Markdown with each answer's sources, and JSON.
    await page.locator(".chat-header").getByRole("button", { name: "Chat info" }).click();
    const info = page.getByRole("complementary", { name: "Chat info" });
    const [markdown] = await Promise.all([
      page.waitForEvent("download"),
      info.getByRole("button", { name: "Export as Markdown" }).click(),
    ]);
    assert.equal(markdown.suggestedFilename(), "bakery.md");
    const text = await Deno.readTextFile((await markdown.path())!);
    assert.match(text, /^# Bakery\n/);
    assert.match(text, /## You · .+\n\nWhich spice is in the winter loaf\?\n/);
    assert.match(text, /## Test\/SlowAssistant · .+\n\nHere is what the documents say:/);
    assert.match(text, /### Sources\n\n1\. bakery\.md\n\n {3}> /);
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      info.getByRole("button", { name: "Export as JSON" }).click(),
    ]);
    assert.equal(json.suggestedFilename(), "bakery.json");
    const exported = JSON.parse(await Deno.readTextFile((await json.path())!));
    const stored = await (await fetch(`${svc.apiUrl}/chats/${bakery}`, {
      headers: { authorization: `Bearer ${ada.token}` },
    })).json();
    assert.deepEqual(exported, stored);
    await lightAndDark(page, "79-chat-info-export");

    // A file svc cannot read is named as soon as it is uploaded, before Create.
    await page.locator(".sidebar").getByRole("button", { name: "New chat" }).click();
    const dialog = page.getByRole("dialog", { name: "New chat" });
    await dialog.locator("#files").setInputFiles([
      { name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("no PDF at all") },
      { name: "fine.md", mimeType: "text/markdown", buffer: Buffer.from("# Fine\n\nText.") },
    ]);
    const broken = dialog.locator(".upload.unreadable");
    await broken.waitFor();
    assert.match(await broken.innerText(), /Cannot read "broken\.pdf": the file is not a PDF/);
    await until(
      async () => /Uploaded · 1 page/.test(await dialog.locator(".upload.done").innerText()),
      "the readable file is read",
    );
    await lightAndDark(page, "80-upload-unreadable");

    // On a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await lightAndDark(page, "81-upload-unreadable-phone");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await info.getByRole("button", { name: "Close chat info" }).click();
    await page.getByRole("button", { name: "Show the chats" }).click();
    await page.getByLabel("Search the chats").fill("tomatoes");
    await list.getByRole("button", { name: /Garden/ }).locator(".chat-link-snippet mark").waitFor();
    await lightAndDark(page, "82-search-messages-phone");
    await context.close();
  },
);
