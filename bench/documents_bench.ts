/**
 * Reading documents: each format's handler against reading the same file's
 * bytes from disk, the floor any handler pays.
 */
import { LocalDocument } from "../components/mod.ts";

const fixtures = new URL("../tests/fixtures/", import.meta.url);
const names = ["report.pdf", "notes.docx", "slides.pptx"];
const documents = names.map((name) => LocalDocument.fromPath(new URL(name, fixtures)));
for (const document of documents) await document.extractPages(); // load the libraries first

for (const document of documents) {
  Deno.bench({
    name: `read ${document.name} (reference)`,
    group: document.name,
    baseline: true,
    async fn() {
      await document.read();
    },
  });
  Deno.bench({
    name: `extractPages() ${document.name}`,
    group: document.name,
    async fn() {
      await document.extractPages();
    },
  });
}
