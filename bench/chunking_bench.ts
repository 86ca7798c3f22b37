/**
 * Chunking against its floor: encoding the same pages' text once with the
 * tokenizer alone is the reference, so the ratio is what finding paragraphs,
 * sentences and windows, counting each chunk's tokens and tracking pages add
 * (or save: chunking counts words from a cache, `components/token_counts.ts`,
 * and the reference encodes every word anew). Measured on a page of one
 * sentence repeated, and on the repository's labelled set as svc reads it
 * (three PDFs, Markdown, DOCX and PPTX), where the offline embedder's time
 * for the chunks is measured too. The caches are warm after the first run, as
 * in an indexing worker that has read a few documents.
 */
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { chunkPages } from "../components/chunking.ts";
import { LocalDocument } from "../components/core/document.ts";
import { readPages } from "../components/documents/pages.ts";
import { HashEmbedder } from "../components/embeddings/hash.ts";

const sentence =
  "The committee reviewed the quarterly figures and noted steady growth in exports. ";
const pages = Array.from({ length: 100 }, (_, i) => ({ text: sentence.repeat(40), number: i + 1 }));

Deno.bench({
  name: "tokenize 100 pages (reference)",
  group: "chunking",
  baseline: true,
  fn() {
    for (const page of pages) encode(page.text);
  },
});

Deno.bench({
  name: "chunkPages() 100 pages, 500/250",
  group: "chunking",
  fn() {
    chunkPages(pages, { chunkSize: 500, chunkOverlap: 250 });
  },
});

const labelled = new URL("../tests/fixtures/labelled/", import.meta.url);
const names = [
  "clsguide.pdf",
  "grfguide.pdf",
  "usrguide.pdf",
  "commander.md",
  "smol-toml.docx",
  "semver.pptx",
];
const documents = await Promise.all(
  names.map((name) => readPages(LocalDocument.fromPath(new URL(name, labelled)))),
);
const chunks = documents.flatMap((pages) => chunkPages(pages)).map((chunk) => chunk.text);
const embedder = new HashEmbedder();
const group = `the labelled set: ${documents.flat().length} pages, ${chunks.length} chunks`;

Deno.bench({
  name: "tokenize the labelled set's pages (reference)",
  group,
  baseline: true,
  fn() {
    for (const page of documents.flat()) encode(page.text);
  },
});

Deno.bench({
  name: "chunkPages() of each document, 500/100",
  group,
  fn() {
    for (const pages of documents) chunkPages(pages);
  },
});

Deno.bench({
  name: "HashEmbedder.embedSync() of their chunks",
  group,
  fn() {
    embedder.embedSync(chunks);
  },
});
