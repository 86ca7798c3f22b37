import assert from "node:assert/strict";
import { formatSize, refusal, suffixOf } from "../../ui/files.ts";

const SUFFIXES = [".docx", ".md", ".pdf", ".pptx", ".txt"];

Deno.test("refusal() accepts the API's suffixes in any case and explains a refusal", () => {
  assert.equal(refusal("report.pdf", SUFFIXES), null);
  assert.equal(refusal("Notes.DOCX", SUFFIXES), null);
  assert.equal(
    refusal("photo.png", SUFFIXES),
    "svc cannot read .png files; it reads .docx, .md, .pdf, .pptx, .txt",
  );
  assert.match(refusal("Makefile", SUFFIXES)!, /"Makefile" has no file type suffix/);
  assert.match(refusal(".pdf", SUFFIXES)!, /no file type suffix/);
});

Deno.test("suffixOf() is the lower-cased last suffix", () => {
  assert.equal(suffixOf("a.tar.GZ"), ".gz");
  assert.equal(suffixOf("none"), "");
});

Deno.test("formatSize() reads like a file manager", () => {
  assert.equal(formatSize(980), "980 B");
  assert.equal(formatSize(8_200), "8.2 kB");
  assert.equal(formatSize(12_345), "12 kB");
  assert.equal(formatSize(4_500_000), "4.5 MB");
  assert.equal(formatSize(3_000_000_000), "3.0 GB");
});
