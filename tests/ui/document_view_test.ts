/**
 * Citations and the document view in Chromium, against a real `svc ui` whose
 * assistant streams an answer that cites its sources (the pages of a PDF, a
 * Markdown file, the slides of a PowerPoint file): each `[n]` opens source
 * n, "Open at page" shows the page with the passage marked, and a marker
 * without a source is flagged.
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "npm:playwright-core@1.65.1";
import { FIXTURES } from "../test_utils.ts";
import { assertAccessible } from "./_axe.ts";
import { apiUser, browserTest, screenshot, startSvcUi, until } from "./_browser.ts";

const COMPONENTS = new URL("./citing_components.ts", import.meta.url).href;

/** Registers and uploads a file of the fixtures as the user of `token`. */
async function upload(apiUrl: string, token: string, name: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const registered = await (await fetch(`${apiUrl}/document`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name }),
  })).json();
  const form = new FormData();
  form.set("token", registered.parameters.data.token);
  form.set("file", new Blob([await Deno.readFile(`${FIXTURES}/${name}`)]), name);
  const sent = await fetch(registered.parameters.url, { method: "PUT", body: form });
  assert.equal(sent.status, 200, await sent.text());
  return registered.document as { id: string; name: string };
}

/** The text of the page's text layer, its spaces made one. */
async function layerText(page: Page): Promise<string> {
  const text = await page.locator(".textLayer").textContent() ?? "";
  return text.replace(/\s+/g, " ");
}

/** The marked texts of a document view, joined. */
function marks(view: Locator): Promise<string> {
  return view.locator("mark.passage-mark").evaluateAll((found) =>
    found.map((mark) => mark.textContent).join(" ").replace(/\s+/g, " ")
  );
}

/** The text of the page's text layer that is marked as the passage. */
function marked(page: Page): Promise<string> {
  return page.locator(".textLayer mark.passage-mark").evaluateAll((marks) =>
    marks.map((mark) => mark.textContent).join(" ").replace(/\s+/g, " ")
  );
}

browserTest(
  "the web UI: an answer's [n] opens source n, Open at page shows the PDF page with the passage marked, a marker without a source is flagged",
  async (browser) => {
    await using svc = await startSvcUi({
      components: [
        `source_storages = ["${COMPONENTS}#PagesStorage"]`,
        `assistants = ["${COMPONENTS}#CitingAssistant"]`,
      ],
    });
    const ada = await apiUser(svc.apiUrl, "ada");
    const report = await upload(svc.apiUrl, ada.token, "report.pdf");
    const guide = await upload(svc.apiUrl, ada.token, "guide.md");
    const chat = await ada.post<{ id: string }>("/chats", {
      name: "Bakery",
      source_storage: "Test/PagesStorage",
      assistant: "Test/CitingAssistant",
      params: {},
      documents: [report, guide],
    });
    await ada.post(`/chats/${chat.id}/prepare`);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    const loaded: string[] = [];
    page.on("request", (request) => loaded.push(new URL(request.url()).pathname));

    await page.goto(`${svc.url}/?chat=${chat.id}`);
    await page.getByLabel("Username").fill("ada");
    await page.getByLabel("Password").fill("ada");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Bakery" }).waitFor();
    assert.ok(
      !loaded.some((path) => path.includes("pdf.worker")),
      "pdf.js's worker is not loaded before a PDF is opened",
    );
    const before = new Set(loaded);

    // The answer streams; its markers become links once each is whole.
    await page.locator("#prompt").fill("What is special about the winter loaf?");
    await page.keyboard.press("Enter");
    const answer = page.locator("article.message.assistant").last();
    await answer.getByText("Nothing says it sells cakes").waitFor();
    await until(
      async () => (await answer.getAttribute("aria-busy")) === "false",
      "the answer is complete",
    );
    const links = answer.locator("a.citation");
    assert.deepEqual(await links.allInnerTexts(), ["[2]", "[2]", "[3]", "[1]", "[4]"]);
    assert.equal(
      await links.first().getAttribute("aria-label"),
      "Source 2: report.pdf, page 2",
    );
    // A marker without a source is flagged, not dropped and not a link.
    const missing = answer.locator(".citation.missing");
    assert.equal(await missing.innerText(), "[9?]");
    assert.match((await missing.getAttribute("title"))!, /There is no source 9/);
    await screenshot(page, "60-citations");

    // [2] opens the sources at source 2, open and focused.
    await links.first().click();
    const sources = page.getByRole("complementary", { name: "Sources" });
    const cited = sources.locator("#source-2");
    await cited.locator("details[open]").waitFor();
    assert.match(await cited.getAttribute("class") ?? "", /\bcited\b/);
    assert.match(await cited.innerText(), /report\.pdf[\s\S]*page 2/);
    await until(
      async () => await page.evaluate('document.activeElement?.closest("#source-2") !== null'),
      "source 2 takes the focus",
    );
    await screenshot(page, "61-source-from-citation");

    // Open at page: page 2 of the PDF drawn, the passage marked in its text layer.
    await cited.getByRole("button", { name: "Open at page" }).click();
    const view = page.getByRole("dialog", { name: "report.pdf" });
    await view.waitFor();
    await view.locator(".textLayer mark.passage-mark").first().waitFor({ timeout: 30_000 });
    assert.match(await view.locator(".document-source").innerText(), /Page 2 of 3/);
    const passage = await marked(page);
    assert.match(passage, /secret ingredient is cardamom/);
    assert.match(passage, /winter loaf/);
    assert.doesNotMatch(passage, /opening hours/, "only the passage is marked");
    assert.match(await layerText(page), /Page two describes the famous winter loaf/);
    const fetched = loaded.filter((path) => !before.has(path));
    assert.ok(fetched.some((path) => /\/assets\/pdf\.worker-\w+\.js$/.test(path)), "the worker");
    assert.ok(fetched.some((path) => path.endsWith(`/documents/${report.id}/content`)));
    await screenshot(page, "62-document-pdf-page");

    // The keyboard steps through the pages; the passage is marked on its own page only.
    await page.keyboard.press("ArrowRight");
    await until(
      async () => /Page 3 of 3/.test(await view.locator(".document-source").innerText()),
      "page 3 is shown",
    );
    await until(
      async () => /opening hours/.test(await layerText(page)),
      "page 3 is drawn",
    );
    assert.equal(await view.locator("mark.passage-mark").count(), 0);
    assert.ok(await view.getByRole("button", { name: "Next page" }).isDisabled());
    await page.keyboard.press("ArrowLeft");
    await view.locator(".textLayer mark.passage-mark").first().waitFor();
    assert.match(await marked(page), /cardamom/);

    // Escape closes it and gives the focus back to the button that opened it.
    await page.keyboard.press("Escape");
    await view.waitFor({ state: "detached" });
    await until(
      async () =>
        await page.evaluate("document.activeElement?.textContent?.trim()") === "Open at page",
      "the focus is back on Open at page",
    );

    // On a phone, and in the dark.
    await page.setViewportSize({ width: 390, height: 844 });
    await cited.getByRole("button", { name: "Open at page" }).click();
    await view.locator(".textLayer mark.passage-mark").first().waitFor({ timeout: 30_000 });
    await screenshot(page, "63-document-pdf-phone");
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "64-document-pdf-phone-dark");
    await page.keyboard.press("Escape");
    await view.waitFor({ state: "detached" });
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, "65-source-from-citation-dark");
    await page.emulateMedia({ colorScheme: "light" });

    // A Markdown source: its text, with the passage marked and scrolled to.
    await sources.getByRole("button", { name: "Close sources" }).click();
    await answer.locator('a.citation[data-source="4"]').click();
    const markdown = sources.locator("#source-4");
    await markdown.locator("details[open]").waitFor();
    await markdown.getByRole("button", { name: "Open the document" }).click();
    // Markdown rendered, the passage marked across its code span.
    const text = page.getByRole("dialog", { name: "guide.md" });
    const mark = text.locator(".document-text mark.passage-mark");
    await mark.first().waitFor();
    assert.match(await marks(text), /Start the service with svc api/);
    assert.ok(await mark.first().isVisible());
    assert.ok(await text.locator(".document-text.markdown code").count() > 0, "rendered");
    await assertAccessible(page, "(a Markdown document)");
    await screenshot(page, "66-document-text");
    await page.keyboard.press("Escape");
    await text.waitFor({ state: "detached" });

    // A passage over two pages is marked on each.
    const span = sources.locator("#source-5");
    await span.locator("summary").click();
    await span.getByRole("button", { name: "Open at page" }).click();
    await view.locator(".textLayer mark.passage-mark").first().waitFor({ timeout: 30_000 });
    assert.match(await view.locator(".document-source").innerText(), /Source 5[\s\S]*Page 2 of 3/);
    assert.match(await marked(page), /secret ingredient is cardamom/);
    await page.keyboard.press("ArrowRight");
    await until(async () => /opening hours/.test(await marked(page)), "page 3's part is marked");
    await page.keyboard.press("Escape");
    await view.waitFor({ state: "detached" });

    // The citations are kept with the answer: after a reload they are links again.
    await page.reload();
    await page.getByRole("heading", { name: "Bakery" }).waitFor();
    const reloaded = page.locator("article.message.assistant").last();
    await reloaded.locator("a.citation").first().waitFor();
    assert.deepEqual(
      await reloaded.locator("a.citation").allInnerTexts(),
      ["[2]", "[2]", "[3]", "[1]", "[4]"],
    );
    assert.equal(await reloaded.locator(".citation.missing").count(), 1);
    const stored = await (await fetch(`${svc.apiUrl}/chats/${chat.id}`, {
      headers: { authorization: `Bearer ${ada.token}` },
    })).json();
    assert.deepEqual(stored.messages.at(-1).citations, [2, 3, 1, 4]);

    // A PowerPoint source: a slide's text, stepped through with the keyboard.
    const slides = await upload(svc.apiUrl, ada.token, "slides.pptx");
    const notes = await upload(svc.apiUrl, ada.token, "notes.docx");
    const garden = await ada.post<{ id: string }>("/chats", {
      name: "Garden",
      source_storage: "Test/PagesStorage",
      assistant: "Test/CitingAssistant",
      params: {},
      documents: [slides, notes],
    });
    await ada.post(`/chats/${garden.id}/prepare`);
    await page.goto(`${svc.url}/?chat=${garden.id}`);
    await page.getByRole("heading", { name: "Garden" }).waitFor();
    await page.locator("#prompt").fill("What was harvested?");
    await page.keyboard.press("Enter");
    const harvest = page.locator("article.message.assistant").last();
    await harvest.getByText("Nothing says it sells cakes").waitFor();
    // Three slides, a Word document and a passage over two slides: [9] has no source.
    assert.deepEqual(await harvest.locator(".citation.missing").allInnerTexts(), ["[9?]"]);
    await harvest.locator('a.citation[data-source="2"]').first().click();
    await sources.locator("#source-2").getByRole("button", { name: "Open at page" }).click();
    const deck = page.getByRole("dialog", { name: "slides.pptx" });
    // A slide as a slide: its title over its text, "Slide 2 of 3".
    await deck.locator(".document-text mark.passage-mark").first().waitFor();
    assert.match(await deck.locator(".document-source").innerText(), /Slide 2 of 3/);
    assert.match(await marks(deck), /Harvest[\s\S]*Tomatoes/);
    assert.match(await deck.locator(".slide h3").innerText(), /Harvest/);
    await page.keyboard.press("ArrowRight");
    await deck.getByText("Repair the greenhouse roof").waitFor();
    assert.match(await deck.locator(".document-source").innerText(), /Slide 3 of 3/);
    assert.equal(await deck.locator("mark.passage-mark").count(), 0);
    await page.keyboard.press("ArrowLeft");
    await deck.locator("mark.passage-mark").first().waitFor();
    await assertAccessible(page, "(a slide)");
    await screenshot(page, "67-document-slides");
    await page.keyboard.press("Escape");
    await deck.waitFor({ state: "detached" });

    // A Word document as HTML: its heading, list and table, the passage marked.
    await harvest.locator('a.citation[data-source="4"]').first().click();
    await sources.locator("#source-4").getByRole("button", { name: "Open the document" }).click();
    const word = page.getByRole("dialog", { name: "notes.docx" });
    await word.locator(".document-text mark.passage-mark").first().waitFor();
    const html = word.locator(".document-text.docx");
    assert.match(await html.locator("h1, h2").first().innerText(), /Meeting notes/);
    assert.ok(await html.locator("li").count() >= 3, "the decisions as a list");
    assert.match(await html.locator("table").innerText(), /Cover design[\s\S]*Ana/);
    assert.match(await marks(word), /The team met on Tuesday/);
    await assertAccessible(page, "(a Word document)");
    await screenshot(page, "67b-document-word");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    await assertAccessible(page, "(a Word document on a phone, dark)");
    await screenshot(page, "67c-document-word-phone-dark");
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press("Escape");
    await word.waitFor({ state: "detached" });

    assert.deepEqual(problems, []);
    await context.close();
  },
);
