/**
 * The web UI when a model's server stops answering after svc started, in Chromium against a real
 * `svc ui`: making a chat with that model is refused in a sentence that names the server once.
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { freePort } from "../_process.ts";
import { apiUser, browserTest, openAs, screenshot, startSvcUi, until } from "./_browser.ts";

browserTest(
  "a model server that stopped answering is named once, as a server, when a chat with it is made",
  async (browser) => {
    // The model's server answers while svc starts, which checks it, then stops.
    const port = freePort();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen() {} },
      // It serves the model: svc asks which it serves.
      () => Response.json({ data: [{ id: "gone" }] }),
    );
    await using svc = await startSvcUi({
      components: [
        `source_storages = ["svc.source_storages.SvcDemoSourceStorage"]`,
        `assistants = ["svc.assistants.OpenAICompatible", "svc.assistants.SvcDemoAssistant"]`,
      ],
      env: {
        SVC_OPENAI_COMPATIBLE_URL: `http://127.0.0.1:${port}/v1`,
        SVC_OPENAI_COMPATIBLE_MODEL: "gone",
      },
    });
    await server.shutdown();

    const ada = await apiUser(svc.apiUrl, "ada");
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await openAs(page, svc.url, ada);
    await page.getByRole("button", { name: "New chat" }).first().click();
    const dialog = page.getByRole("dialog", { name: "New chat" });
    await dialog.getByLabel("Assistant").selectOption("OpenAICompatible/gone");
    await dialog.locator("#files").setInputFiles([
      { name: "notes.md", mimeType: "text/plain", buffer: Buffer.from("# Notes\n\nSome notes.") },
    ]);
    await until(async () => (await dialog.locator(".upload.done").count()) === 1, "uploaded");
    await dialog.getByRole("button", { name: "Create chat" }).click();

    const said = page.getByText(/is not available: it needs/);
    await said.waitFor({ timeout: 20_000 });
    const sentence = await said.innerText();
    assert.equal(
      sentence,
      'The chat was not created: The component "OpenAICompatible/gone" is not available: it ' +
        `needs the OpenAI-compatible server at "http://127.0.0.1:${port}/v1" to answer`,
    );
    assert.doesNotMatch(sentence, /server OpenAI-compatible server/);
    await screenshot(page, "57-model-server-gone");
  },
);
