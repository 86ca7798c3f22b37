import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import {
  checkPdfStreams,
  MAX_PDF_STREAM_RATIO,
} from "../../../components/documents/pdf/streams.ts";
import { fixture, refusal } from "../_helpers.ts";

/** A file with one stream object of the given dictionary and data; enough for the guard. */
function pdf(dictionary: string, data: Uint8Array): Uint8Array {
  const encode = (text: string) => new TextEncoder().encode(text);
  const head = encode(`%PDF-1.4\n5 0 obj\n<<${dictionary}>>\nstream\n`);
  const tail = encode("\nendstream\nendobj\n%%EOF\n");
  const bytes = new Uint8Array(head.length + data.length + tail.length);
  bytes.set(head);
  bytes.set(data, head.length);
  bytes.set(tail, head.length + data.length);
  return bytes;
}

const operators = (bytes: number) => new TextEncoder().encode("(a) Tj ".repeat(bytes / 7));

Deno.test("`checkPdfStreams()` refuses a stream over 1 MiB compressed more than 100 to 1", async () => {
  assert.equal(MAX_PDF_STREAM_RATIO, 100);
  const bomb = pdf("/Length 6 0 R/Filter /FlateDecode", deflateSync(operators(4 * 2 ** 20)));
  await assert.rejects(
    () => checkPdfStreams(bomb, "bomb.pdf"),
    refusal('Cannot read "bomb.pdf": the stream of object 5 is compressed more than 100 to 1'),
  );
  // Damaged near its end, it still inflates to most of that first, as pdfjs would read it.
  const damaged = deflateSync(operators(4 * 2 ** 20));
  damaged.fill(0xff, damaged.length - 64);
  await assert.rejects(
    () => checkPdfStreams(pdf("/Filter /FlateDecode", damaged), "damaged.pdf"),
    refusal('Cannot read "damaged.pdf": the stream of object 5 is compressed more than 100 to 1'),
  );
  const twice = deflateSync(deflateSync(operators(4 * 2 ** 20)));
  await assert.rejects(
    () => checkPdfStreams(pdf("/Filter [/FlateDecode /Fl]", twice), "twice.pdf"),
    refusal('Cannot read "twice.pdf": the stream of object 5 is compressed more than 100 to 1'),
  );
});

Deno.test("`checkPdfStreams()` lets small streams, images and what it cannot inflate through", async () => {
  const small = deflateSync(operators(2 ** 20 - 7));
  await checkPdfStreams(pdf("/Filter /FlateDecode", small), "small.pdf");
  const blank = deflateSync(new Uint8Array(16 * 2 ** 20).fill(0xff));
  await checkPdfStreams(
    pdf("/Type /XObject /Subtype /Image /Filter /FlateDecode", blank),
    "scan.pdf",
  );
  await checkPdfStreams(pdf("/Filter /FlateDecode", new Uint8Array(64).fill(7)), "garbage.pdf");
  await checkPdfStreams(pdf("/Filter /LZWDecode", deflateSync(operators(4 * 2 ** 20))), "lzw.pdf");
});

Deno.test("`checkPdfStreams()` passes real PDFs", async () => {
  await checkPdfStreams(await fixture("report.pdf"), "report.pdf");
  await checkPdfStreams(await fixture("encrypted.pdf"), "encrypted.pdf");
});
