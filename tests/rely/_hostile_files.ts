/**
 * The hostile documents of the reliability tests and `bench/attacks.ts`: files of a few hundred
 * kilobytes that once made a reader build gigabytes or work for minutes, each with the problem
 * svc's refusal names.
 * @module
 */
import { zipOf } from "../documents/_helpers.ts";
import { flateStream, page, pages, refs } from "../documents/pdf/_make.ts";

const MiB = 2 ** 20;

/** A file to upload, and what svc's refusal of it says after `Cannot read "<name>": `. */
export interface HostileFile {
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
  problem: string;
}

/** A Word document whose one part is `word/document.xml` holding `paragraphs` short paragraphs. */
export function wordOf(paragraphs: number): Uint8Array<ArrayBuffer> {
  // Words that vary, so that the part compresses as a real one does, under the ZIP guard's ratio.
  const words = Array.from({ length: 997 }, (_, i) => (i * 7_919).toString(36));
  const body = Array.from(
    { length: paragraphs },
    (_, i) => `<w:p><w:r><w:t>${words[i % words.length]}</w:t></w:r></w:p>`,
  ).join("");
  return zipOf({
    "word/document.xml": '<?xml version="1.0"?><w:document xmlns:w="http://schemas.' +
      `openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

/** Drawing operators, `bytes` long: each is read, none makes text. */
export function drawing(bytes: number): Uint8Array {
  return new TextEncoder().encode("0 0 m 10 10 l S\n".repeat(Math.floor(bytes / 16)));
}

/** A presentation of `count` slides, each of about `bytes` bytes of XML. */
export function deckOf(count: number, bytes: number): Uint8Array<ArrayBuffer> {
  const letters = Array.from({ length: 1024 }, (_, i) => String.fromCharCode(97 + (i * 31) % 26))
    .join("");
  const slide = new TextEncoder().encode(
    `<p:sld><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>${
      letters.repeat(bytes / 1024)
    }</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
  );
  const ids = Array.from({ length: count }, (_, i) => `<p:sldId id="${256 + i}" r:id="r${i}"/>`);
  const rels = Array.from(
    { length: count },
    (_, i) => `<Relationship Id="r${i}" Type="slide" Target="slides/slide${i + 1}.xml"/>`,
  );
  return zipOf({
    "ppt/presentation.xml": `<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst>${
      ids.join("")
    }</p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<Relationships>${rels.join("")}</Relationships>`,
    ...Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`ppt/slides/slide${i + 1}.xml`, slide]),
    ),
  });
}

const HELLO = flateStream("BT /F1 12 Tf 72 700 Td (Hello) Tj ET");

/**
 * The four files of GUARD-2 that stopped svc for every user, each refused by a count, whatever
 * the reader threads' heap and deadline.
 */
export function issueFiles(): HostileFile[] {
  return [
    {
      // Some 50 MiB of short paragraphs, in a file of a few hundred kilobytes: mammoth's tree of
      // it took the whole process's heap.
      name: "paragraphs.docx",
      bytes: wordOf(1_500_000),
      problem: 'the part "word/document.xml" has more than 200,000 paragraphs',
    },
    {
      name: "repeated.pdf",
      bytes: pages(refs(200_000, 4, { same: true }), 200_000, [page("5 0 R"), HELLO]),
      problem: "its page tree lists one page more than 100 times",
    },
    {
      name: "streams.pdf",
      bytes: pages("4 0 R", 1, [
        page(`[${refs(250, 5)}]`),
        ...Array(250).fill(flateStream(drawing(MiB - 64))),
      ]),
      problem: "a page's content inflates to more than 32 MiB",
    },
    {
      name: "slides.pptx",
      bytes: deckOf(250, MiB),
      problem: "its slides are larger than 128 MiB together",
    },
  ];
}
