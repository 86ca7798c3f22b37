/**
 * The user's documents in Chromium against a real `svc ui`: a pill and Chat
 * info open a document, Chat info takes one out of its chat, the documents
 * dialog lists them with the chats that use each, deletes one no chat uses
 * (and says why it will not delete one in use), and starts a new chat from
 * the chosen ones. Checked by axe at 1440 and 390 px, light and dark.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { assertAccessible } from "./_axe.ts";
import { apiUser, browserTest, openAs, screenshot, startSvcUi, until } from "./_browser.ts";

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
  "documents open from their pills and Chat info, leave a chat, are listed, deleted when no chat uses them, and start a new chat",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const notes = await ada.upload("notes.md", "# Notes\n\nThe winter loaf has **cardamom**.");
    const kitchen = await ada.upload("kitchen.md", "# Kitchen\n\nThe oven is fired at four.");
    const chat = await ada.post<{ id: string }>("/chats", {
      name: "Bakery",
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [notes, kitchen],
    });
    await ada.post(`/chats/${chat.id}/prepare`);
    await ada.upload("spare.md", "# Spare\n\nNot in any chat.");
    const listed = async () =>
      (await (await fetch(`${svc.apiUrl}/documents`, {
        headers: { authorization: `Bearer ${ada.token}` },
      })).json()) as { id: string; name: string; chats: string[] }[];

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await openAs(page, `${svc.url}/?chat=${chat.id}`, ada);
    await page.getByRole("heading", { name: "Bakery" }).waitFor();

    // A pill opens its document, rendered; Escape gives the focus back to the pill.
    const pill = page.getByRole("list", { name: "Documents" }).getByRole("button", {
      name: "Open notes.md",
    });
    await pill.click();
    const view = page.getByRole("dialog", { name: "notes.md" });
    await view.locator(".document-text.markdown strong").getByText("cardamom").waitFor();
    assert.equal(await view.locator("mark").count(), 0, "nothing is marked without a source");
    await page.keyboard.press("Escape");
    await view.waitFor({ state: "detached" });
    await until(
      async () => await pill.evaluate((e) => e === e.ownerDocument.activeElement),
      "focus",
    );

    // Chat info opens a document, and takes one out of the chat.
    await page.locator(".chat-header").getByRole("button", { name: "Chat info" }).click();
    const info = page.getByRole("complementary", { name: "Chat info" });
    await info.getByRole("button", { name: "Open kitchen.md" }).click();
    await page.getByRole("dialog", { name: "kitchen.md" }).getByText("The oven is fired").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await info.getByRole("button", { name: "Take kitchen.md out of the chat" }).click();
    await info.getByRole("button", { name: "Take out" }).click();
    await until(
      async () => (await info.getByRole("button", { name: "Open kitchen.md" }).count()) === 0,
      "kitchen.md left the chat",
    );
    assert.deepEqual(
      (await page.getByRole("list", { name: "Documents" }).getByRole("listitem").allInnerTexts())
        .map((text) => text.trim()),
      ["notes.md"],
    );
    await info.getByRole("button", { name: "Close chat info" }).click();

    // The documents, newest first, with the chats that use each.
    await page.getByRole("button", { name: "Your documents" }).click();
    const dialog = page.getByRole("dialog", { name: "Your documents" });
    const rows = dialog.getByRole("list", { name: "Documents" }).getByRole("listitem");
    await rows.first().waitFor();
    assert.deepEqual(
      (await rows.locator(".document-row-name").allInnerTexts()).map((text) => text.trim()),
      ["spare.md", "kitchen.md", "notes.md"],
    );
    assert.match(await rows.nth(2).innerText(), /used by "Bakery"/);
    assert.match(await rows.nth(0).innerText(), /in no chat/);
    await lightAndDark(page, "87-documents");

    // One a chat uses is not deleted: the dialog says which chat, and how to free it.
    await dialog.getByRole("button", { name: "Delete notes.md" }).click();
    await dialog.getByText(/"Bakery" uses it: take it out of the chat/).waitFor();
    await dialog.locator(".document-row-ask").getByRole("button", { name: "Close" }).click();
    // One no chat uses is deleted, after a question.
    await dialog.getByRole("button", { name: "Delete spare.md" }).click();
    await dialog.locator(".document-row-ask").getByRole("button", { name: "Delete spare.md" })
      .click();
    await until(async () => (await rows.count()) === 2, "spare.md is gone");
    assert.deepEqual((await listed()).map((d) => d.name).sort(), ["kitchen.md", "notes.md"]);

    // A new chat from the chosen document, without uploading it again.
    await page.setViewportSize({ width: 390, height: 844 });
    await dialog.getByRole("checkbox", { name: "kitchen.md" }).check();
    await lightAndDark(page, "88-documents-phone");
    await dialog.getByRole("button", { name: "New chat from this (1)" }).click();
    const create = page.getByRole("dialog", { name: "New chat" });
    await create.locator(".upload.done").getByText("kitchen.md").waitFor();
    await create.getByLabel("Name").fill("Oven");
    await create.getByRole("button", { name: "Create chat" }).click();
    await create.waitFor({ state: "detached", timeout: 30_000 });
    await page.getByRole("heading", { name: "Oven" }).waitFor({ state: "attached" });
    const kitchenRow = (await listed()).find((d) => d.name === "kitchen.md")!;
    assert.equal(kitchenRow.id, kitchen.id, "the same document, not a new upload");
    assert.equal(kitchenRow.chats.length, 1);
    await page.close();
  },
);
