/**
 * A cited PDF page on a phone and at a desk, in Chromium against a real
 * `svc ui`: it fits the width and zooms in and out, its toolbar and the
 * answer's action row fit 390 px, the next page opens at its top, and the
 * passage's mark leaves out the running heads that the passage itself kept.
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "npm:playwright-core@1.65.1";
import { FIXTURES } from "../test_utils.ts";
import { assertAccessible } from "./_axe.ts";
import { apiUser, browserTest, openAs, screenshot, startSvcUi, until } from "./_browser.ts";

const COMPONENTS = new URL("./citing_components.ts", import.meta.url).href;

/** The marked text of the page's text layer, its spaces made one. */
function marked(page: Page): Promise<string> {
  return page.locator(".textLayer mark.passage-mark").evaluateAll((marks) =>
    marks.map((mark) => mark.textContent).join(" ").replace(/\s+/g, " ")
  );
}

/** The drawn page's width in CSS pixels. */
async function pageWidth(page: Page): Promise<number> {
  return (await page.locator(".pdf-page canvas").boundingBox())?.width ?? 0;
}

/** Whether every button of `selector` is wholly inside the window's width. */
function allInside(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluateAll((buttons) =>
    buttons.every((button) => {
      const box = button.getBoundingClientRect();
      return box.left >= 0 && box.right <= button.ownerDocument.documentElement.clientWidth;
    })
  );
}

browserTest(
  "a cited PDF page fits the width and zooms, its toolbar fits a phone, the next page opens at its top, running heads are not marked",
  async (browser) => {
    await using svc = await startSvcUi({
      components: [
        `source_storages = ["${COMPONENTS}#HeadedPagesStorage"]`,
        `assistants = ["${COMPONENTS}#CitingAssistant"]`,
      ],
    });
    const ada = await apiUser(svc.apiUrl, "ada");
    const { document, parameters } = await ada.post<{
      document: { id: string; name: string };
      parameters: { url: string; data: Record<string, string> };
    }>("/document", { name: "layout.pdf" });
    const form = new FormData();
    form.set("token", parameters.data.token!);
    form.set("file", new Blob([await Deno.readFile(`${FIXTURES}layout.pdf`)]), "layout.pdf");
    const sent = await fetch(parameters.url, { method: "PUT", body: form });
    assert.equal(sent.status, 200, await sent.text());
    const chat = await ada.post<{ id: string }>("/chats", {
      name: "Annual report",
      source_storage: "Test/HeadedPagesStorage",
      assistant: "Test/CitingAssistant",
      params: {},
      documents: [document],
    });
    await ada.post(`/chats/${chat.id}/prepare`);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    await openAs(page, `${svc.url}/?chat=${chat.id}`, ada);
    await page.locator("#prompt").fill("What is the winter loaf?");
    await page.keyboard.press("Enter");
    const answer = page.locator("article.message.assistant").last();
    await until(async () => (await answer.getAttribute("aria-busy")) === "false", "answered");
    assert.ok(await allInside(page, ".message-actions .button"), "the action row is not clipped");

    // Source 2 is page 2, with its running head: the head is not marked, the passage is.
    await answer.locator('a.citation[data-source="2"]').first().click();
    const sources = page.getByRole("complementary", { name: "Sources" });
    await sources.locator("#source-2").getByRole("button", { name: "Open at page" }).click();
    const view = page.getByRole("dialog", { name: "layout.pdf" });
    await view.locator(".textLayer mark.passage-mark").first().waitFor({ timeout: 30_000 });
    const passage = await marked(page);
    assert.match(passage, /The winter loaf is a sweet braided bread/);
    assert.doesNotMatch(passage, /Lindenbaum Bakery|annual report|Page 2 of 3/);

    // On a phone the page fits the width, and the toolbar fits with it.
    const pages = view.locator(".document-pages");
    const fit = await pageWidth(page);
    const room = await pages.evaluate((element) => element.clientWidth);
    assert.ok(fit <= room && fit > room * 0.8, `the page fits the width: ${fit} of ${room}`);
    assert.ok(await allInside(page, ".document-toolbar .button"), "the toolbar fits 390 px");
    const toolbar = view.locator(".document-toolbar");
    assert.ok(
      await toolbar.evaluate((element) => element.scrollWidth <= element.clientWidth),
      "nothing of the toolbar is cut off",
    );
    await assertAccessible(page, "(the PDF page on a phone, light)");
    await screenshot(page, "75-document-fit-phone");

    // Zoom in, and back to the width.
    await view.getByRole("button", { name: "Zoom in" }).click();
    await until(async () => Math.abs(await pageWidth(page) - fit * 1.25) < 2, "zoomed to 125%");
    await view.getByRole("button", { name: "Zoom in" }).click();
    await until(async () => Math.abs(await pageWidth(page) - fit * 1.5) < 2, "zoomed to 150%");
    assert.ok(
      await pages.evaluate((element) => element.scrollWidth > element.clientWidth),
      "a zoomed page scrolls sideways",
    );
    await page.emulateMedia({ colorScheme: "dark" });
    await assertAccessible(page, "(the PDF page zoomed on a phone, dark)");
    await screenshot(page, "76-document-zoomed-phone-dark");
    await page.emulateMedia({ colorScheme: "light" });
    await view.getByRole("button", { name: /fit the width/ }).click();
    await until(async () => Math.abs(await pageWidth(page) - fit) < 2, "back to the width");
    // A touchpad's pinch (a wheel with Ctrl) zooms the page, not the whole UI.
    await pages.hover();
    await page.keyboard.down("Control");
    await page.mouse.wheel(0, -100);
    await page.keyboard.up("Control");
    await until(async () => Math.abs(await pageWidth(page) - fit * 1.25) < 2, "pinched in");
    assert.equal(await page.evaluate("visualViewport.scale"), 1, "the UI is not zoomed");
    await view.getByRole("button", { name: /fit the width/ }).click();
    await until(async () => Math.abs(await pageWidth(page) - fit) < 2, "back to the width");

    // The next page, which does not hold the passage, opens at its top.
    for (let i = 0; i < 4; i++) await page.keyboard.press("+");
    await until(async () => Math.abs(await pageWidth(page) - fit * 3) < 2, "zoomed by key");
    await pages.evaluate((element) => element.scrollTop = element.scrollHeight);
    assert.ok(await pages.evaluate((element) => element.scrollTop > 0), "scrolled down");
    await view.getByRole("button", { name: "Next page" }).click();
    await until(
      async () => /Page 3 of 3/.test(await view.locator(".document-source").innerText()),
      "page 3 is shown",
    );
    await until(
      async () => (await page.locator(".textLayer").textContent() ?? "").includes("Opening hours"),
      "page 3 is drawn",
    );
    assert.equal(await pages.evaluate((element) => element.scrollTop), 0, "page 3 from its top");

    // At a desk, in the dark.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press("0");
    await page.keyboard.press("ArrowLeft");
    await view.locator(".textLayer mark.passage-mark").first().waitFor();
    await page.emulateMedia({ colorScheme: "dark" });
    await assertAccessible(page, "(the PDF page at a desk, dark)");
    await screenshot(page, "77-document-desk-dark");
    assert.deepEqual(problems, []);
    await page.close();
  },
);
