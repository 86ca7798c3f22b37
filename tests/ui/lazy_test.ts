/**
 * The parts of the web UI loaded on first use, when their files cannot be
 * loaded: the failure is said in words where the part would be, never a
 * blank page.
 * @module
 */
import assert from "node:assert/strict";
import { apiUser, browserTest, screenshot, startSvcUi } from "./_browser.ts";

browserTest(
  "the web UI: a dialog or the document view whose chunk cannot be loaded says so in words",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const notes = await ada.upload("notes.md", "# Notes\n\nRye bread keeps for a week.\n");
    const chat = await ada.post<{ id: string }>("/chats", {
      name: "Notes",
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents: [notes],
    });
    await ada.post(`/chats/${chat.id}/prepare`);
    await ada.post(`/chats/${chat.id}/answer`, { prompt: "How long does rye bread keep?" });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/?chat=${chat.id}`);
    await page.getByLabel("Username").fill("ada");
    await page.getByLabel("Password").fill("ada");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Notes" }).waitFor();

    // The page is up; from now on no chunk it has not loaded yet can be fetched.
    await page.route(/\/assets\/chunk-\w+\.js$/, (route) => route.abort("connectionrefused"));
    await page.getByRole("button", { name: "New chat" }).first().click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /This part of svc cannot be loaded.+reload the page/s);
    assert.match((await alert.getAttribute("title"))!, /chunk-\w+\.js/);
    await screenshot(page, "68-chunk-not-loaded");

    // The document view of a source, the same.
    await page.getByRole("button", { name: "Sources (1)" }).click();
    await page.getByRole("button", { name: "Open the document" }).click();
    const view = page.getByRole("dialog", { name: "notes.md" });
    await view.getByRole("alert").waitFor();
    assert.match(await view.getByRole("alert").innerText(), /The document view cannot be loaded/);
    await page.keyboard.press("Escape");
    await view.waitFor({ state: "detached" });

    // Once the files can be fetched again, a reload brings the dialog back.
    await page.unroute(/\/assets\/chunk-\w+\.js$/);
    await page.reload();
    await page.getByRole("button", { name: "New chat" }).first().click();
    await page.getByRole("dialog", { name: "New chat" }).waitFor();
    await page.close();
  },
);
