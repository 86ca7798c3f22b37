/**
 * The documents the fuzzer found bugs with (tests/fixtures/regressions/, see its README.md): each
 * must now end as stated, in a worker. The ends name the bound that stops the work (a ratio, a
 * depth, a page read once), which is what kept these from taking seconds or for ever; no clock
 * decides it.
 * @module
 */
import assert from "node:assert/strict";
import { extractIsolated } from "./fuzz.ts";

const REGRESSIONS = new URL("../fixtures/regressions/", import.meta.url);

/** What each fixture must end in: a refusal's problem, or a number of pages. */
const EXPECTED: Record<string, string | { pages: number }> = {
  "pdf-flate-text-bomb.pdf": "the stream of object 5 is compressed more than 100 to 1",
  "docx-styles-unclosed-deep.docx":
    'the part "word/styles.xml" nests elements more than 1,000 deep',
  "docx-numbering-unclosed-deep.docx":
    'the part "word/numbering.xml" nests elements more than 1,000 deep',
  "pptx-slide-listed-100000-times.pptx": { pages: 1 },
  "pdf-unhandled-rejection-pages.pdf": { pages: 3 },
  "pdf-unhandled-rejection-refused.pdf": "the file is not a valid PDF",
};

Deno.test("every regression fixture has an expected end, and every expected end a fixture", async () => {
  const files = [];
  for await (const entry of Deno.readDir(REGRESSIONS)) {
    if (entry.name !== "README.md") files.push(entry.name);
  }
  assert.deepEqual(files.sort(), Object.keys(EXPECTED).sort());
});

for (const [file, expected] of Object.entries(EXPECTED)) {
  Deno.test(`the fuzz regression "${file}" ends as expected`, async () => {
    const bytes = await Deno.readFile(new URL(file, REGRESSIONS));
    // Only a guard against a hang, such as the one some of these caused before their fixes.
    const result = await extractIsolated(file, bytes, { timeoutMs: 120_000 });
    if (typeof expected === "string") {
      assert.equal(result.outcome, "refused", result.detail);
      assert.equal(result.detail, `422 Cannot read ${JSON.stringify(file)}: ${expected}`);
    } else {
      assert.equal(result.outcome, "pages", result.detail);
      assert.match(result.detail, new RegExp(`^${expected.pages} pages,`));
    }
  });
}
