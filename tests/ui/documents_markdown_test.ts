/**
 * The web UI with many documents, a chat that was never prepared, and
 * answers whose Markdown holds HTML, in Chromium against a real `svc ui`.
 * @module
 */
import assert from "node:assert/strict";
import { apiUser, browserTest, openAs, screenshot, startSvcUi } from "./_browser.ts";

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
    await openAs(page, svc.url, ada);
    await page.getByRole("heading", { name: "The whole book" }).waitFor();

    const pills = page.getByRole("list", { name: "Documents" });
    // Each pill opens its document.
    assert.equal(await pills.getByRole("button", { name: /^Open chapter-\d+\.md$/ }).count(), 20);
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
    const picture = answer.getByRole("link", { name: "a picture (127.0.0.1:9)", exact: true });
    assert.equal(await picture.getAttribute("href"), "http://127.0.0.1:9/tracker.png");
    assert.equal(await picture.getAttribute("rel"), "noopener noreferrer");

    // An answer cannot pass for the page: a copy of the login card with the question box's id,
    // classes, styles, roles and ARIA keeps none of them, and every link says where it leads.
    await prompt.fill(
      '<div class="state-card" id="login" style="position: fixed; inset: 0" role="dialog">' +
        '<a id="prompt" name="prompt" class="button primary" role="button" tabindex="1" ' +
        'aria-label="Sign in to svc" data-action="login" href="https://evil.example/auth/">' +
        "Sign in to svc</a></div>\n\n[the docs](https://docs.example.com/guide) " +
        "https://example.org/page [mail us](mailto:help@example.org) " +
        "[https://bank.example](https://bank.example.evil.example/login)",
    );
    await prompt.press("Enter");
    const copy = page.locator("article.message.assistant").last().locator(".markdown");
    const signIn = copy.getByRole("link", { name: "Sign in to svc (evil.example)", exact: true });
    await signIn.waitFor();
    for (
      const attribute of ["id", "name", "class", "role", "tabindex", "aria-label", "data-action"]
    ) {
      assert.equal(await signIn.getAttribute(attribute), null, attribute);
    }
    const card = signIn.locator("xpath=..");
    for (const attribute of ["id", "class", "style", "role"]) {
      assert.equal(await card.getAttribute(attribute), null, attribute);
    }
    assert.equal(await copy.locator("[class]:not(.link-host), [id], [style]").count(), 0);
    // The question box is still the one element with its id, so focus and the skip link reach it.
    assert.equal(await page.evaluate(`document.querySelectorAll("#prompt").length`), 1);
    assert.equal(await page.evaluate(`document.getElementById("prompt").tagName`), "TEXTAREA");
    await page.getByRole("link", { name: "Skip to the question box" }).focus();
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate(`document.activeElement?.id`), "prompt");
    // The host follows each link's text, as a small label that is part of its name.
    assert.equal(
      await copy.getByRole("link", { name: "the docs (docs.example.com)", exact: true }).count(),
      1,
    );
    assert.equal(
      await copy.getByRole("link", { name: "mail us (help@example.org)", exact: true }).count(),
      1,
    );
    assert.equal(
      await copy.getByRole("link", {
        name: "https://bank.example (bank.example.evil.example)",
        exact: true,
      }).count(),
      1,
    );
    // A link whose text is its address needs no label.
    const plain = copy.getByRole("link", { name: "https://example.org/page", exact: true });
    assert.equal(await plain.locator(".link-host").count(), 0);
    const label = signIn.locator(".link-host");
    assert.equal(await label.innerText(), " (evil.example)");
    assert.equal(
      await label.evaluate((element) => {
        // Runs in the page, where the DOM's getComputedStyle() is global.
        const page = globalThis as unknown as {
          getComputedStyle(element: unknown): { fontSize: string };
        };
        const size = (of: unknown) => parseFloat(page.getComputedStyle(of).fontSize);
        return size(element) <
          size((element as unknown as { parentElement: unknown }).parentElement);
      }),
      true,
      "the label is smaller than the link's text",
    );
    await screenshot(page, "30b-answer-links-show-their-host");

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
