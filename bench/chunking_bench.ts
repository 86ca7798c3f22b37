/**
 * Chunking against its floor: tokenizing the same pages alone is the
 * reference, so the ratio is what windows and page tracking add.
 */
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { chunkPages } from "../components/chunking.ts";

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
