/**
 * The web UI with many documents, a chat that was never prepared, and
 * answers whose Markdown holds HTML, in Chromium against a real `svc ui`.
 * @module
 */
import assert from "node:assert/strict";
import { apiUser, browserTest, screenshot, startSvcUi } from "./_browser.ts";

browserTest(
  "the web UI shows 20 document pills and +N more, prepares a chat, and renders Markdown safely",
  async (browser) => {
    await using svc = await startSvcUi();
    const ada = await apiUser(svc.apiUrl, "ada");
    const documents = [];
    for (let i = 1; i <= 23; i++) {
      documents.push(
        await ada.upload(`chapter-${String(i).padStart(2, "0")}.md`, `# Chapter ${i}\n`),
      );
    }
    // Made through the API and never prepared, as when preparing failed or the tab was closed.
    await ada.post("/chats", {
      name: "The whole book",
      source_storage: "Svc/DemoSourceStorage",
      assistant: "Svc/DemoAssistant",
      params: {},
      documents,
    });

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/auth/`);
    await page.evaluate(
      `localStorage.setItem("svc.session", ${
        JSON.stringify(JSON.stringify({ user: "ada", token: ada.token }))
      })`,
    );
    await page.goto(svc.url);
    await page.getByRole("heading", { name: "The whole book" }).waitFor();

    const pills = page.getByRole("list", { name: "Documents" });
    assert.equal(await pills.locator("li.pill").count(), 20);
    const more = pills.getByRole("button", { name: "+3 more" });
    assert.equal(await more.getAttribute("aria-expanded"), "false");
    await more.click();
    const rest = page.getByRole("list", { name: "More documents" });
    assert.deepEqual(
      (await rest.getByRole("listitem").allInnerTexts()).map((text) => text.trim()),
      ["chapter-21.md", "chapter-22.md", "chapter-23.md"],
    );
    assert.equal(await pills.getByRole("button", { name: "Show fewer" }).count(), 1);

    // Not prepared: the question box waits, and the chat offers to prepare.
    const prompt = page.getByLabel("Ask about the documents");
    assert.equal(await prompt.isDisabled(), true);
    await screenshot(page, "30-many-documents-unprepared");
    await page.getByRole("button", { name: "Prepare the documents" }).click();
    await page.locator("article.message.system").waitFor();
    assert.equal(await prompt.isDisabled(), false);

    // HTML in an answer is sanitized: the demo assistant quotes the prompt back as Markdown.
    await prompt.fill(
      '<img src="x" onerror="window.hacked = true"> <script>window.hacked = true</script> **bold** ' +
        "![a picture](http://127.0.0.1:9/tracker.png)",
    );
    await prompt.press("Enter");
    const answer = page.locator("article.message.assistant").last();
    await answer.locator("blockquote strong").waitFor();
    assert.equal(await answer.locator("script").count(), 0);
    assert.equal(await answer.locator("img").count(), 0);
    assert.equal(await page.evaluate("window.hacked === undefined"), true);
    const picture = answer.getByRole("link", { name: "a picture" });
    assert.equal(await picture.getAttribute("href"), "http://127.0.0.1:9/tracker.png");
    assert.equal(await picture.getAttribute("rel"), "noopener noreferrer");

    // The demo's Markdown sample: a table with alignments, code and emoji shortcodes.
    await prompt.fill("Show me some markdown");
    await prompt.press("Enter");
    const table = page.locator("article.message.assistant").last().locator("table");
    await table.waitFor();
    assert.deepEqual(await table.locator("thead th").allInnerTexts(), [
      "Text",
      "Integer",
      "Decimal",
      "Emoji",
    ]);
    assert.equal(await table.locator("td code").innerText(), "code");
    assert.deepEqual(await table.locator("tr td:last-child").allInnerTexts(), [
      "✨",
      "🚀",
      "👀 📚 👀",
    ]);
    await screenshot(page, "31-markdown-sample");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "32-markdown-sample-phone");
    await page.close();
  },
);
