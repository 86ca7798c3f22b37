/**
 * PDFs made from scratch for the tests: objects numbered from 1 (the first the catalog), a
 * cross-reference table, the streams' data as bytes.
 * @module
 */
import { deflateSync } from "node:zlib";

/** An object: its text (a dictionary, an array, ...), or a stream of a dictionary and data. */
export type PdfObjectSource = string | { dictionary: string; data: Uint8Array };

/** A PDF of the given objects, numbered from 1, whose first is its catalog. */
export function pdfOf(objects: readonly PdfObjectSource[]): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let length = 0;
  const write = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? encoder.encode(part) : part;
    parts.push(bytes);
    length += bytes.length;
  };
  write("%PDF-1.4\n");
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === "string") return write(`${i + 1} 0 obj\n${object}\nendobj\n`);
    write(`${i + 1} 0 obj\n<< ${object.dictionary} /Length ${object.data.length} >>\nstream\n`);
    write(object.data);
    write("\nendstream\nendobj\n");
  });
  const xref = length;
  let table = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) table += `${String(offset).padStart(10, "0")} 00000 n \n`;
  write(
    `${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
  );
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** A stream of `content`, deflated. */
export function flateStream(content: string | Uint8Array, dictionary = ""): PdfObjectSource {
  const data = typeof content === "string" ? new TextEncoder().encode(content) : content;
  return { dictionary: `${dictionary} /Filter /FlateDecode`, data: deflateSync(data) };
}

/** A page of Helvetica text (object 3 is its font in {@linkcode pages}'s files) drawing `contents`. */
export function page(contents: string): string {
  return "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " +
    `/Resources << /Font << /F1 3 0 R >> >> /Contents ${contents} >>`;
}

/** References `first 0 R`, `first + 1 0 R`, ... of `count` objects, or of one object `count` times. */
export function refs(count: number, first: number, { same = false } = {}): string {
  return Array.from({ length: count }, (_, i) => `${same ? first : first + i} 0 R`).join(" ");
}

/**
 * A PDF of a catalog (1), its page tree (2) listing `kids`, Helvetica (3), then `rest` from
 * object 4 on.
 */
export function pages(
  kids: string,
  count: number,
  rest: readonly PdfObjectSource[],
): Uint8Array<ArrayBuffer> {
  return pdfOf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${count} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ...rest,
  ]);
}

/** An object of `content` as a stream, not compressed. */
function stream(content: string): string {
  return `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
}

/**
 * Two pages: the first in a Type 0 font whose text its ToUnicode map gives (which the direct
 * reader reads), the second in Helvetica, not embedded and without a map (whose text pdfjs takes
 * from its encoding, and which the direct reader leaves to pdfjs).
 */
export const TWO_FONTS: Uint8Array<ArrayBuffer> = pdfOf([
  "<< /Type /Catalog /Pages 2 0 R >>",
  "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
  "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
  "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F2 9 0 R >> >> /Contents 10 0 R >>",
  "<< /Type /Font /Subtype /Type0 /BaseFont /Demo /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 8 0 R >>",
  stream(
    "BT /F1 12 Tf 20 150 Td <0001000200030004> Tj 0 -20 Td [<0001> -900 <0002>] TJ 0 -20 Td (\\000\\004) Tj ET",
  ),
  "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Demo /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 11 0 R /W [1 [500 600 250]] /DW 700 >>",
  stream(
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
      "3 beginbfchar <0001> <0048> <0002> <0069> <0003> <0020> endbfchar\n1 beginbfrange <0004> <0004> <00660069> endbfrange\nendcmap end end",
  ),
  "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  stream("BT /F2 12 Tf 20 150 Td (Hello there) Tj 0 -20 Td (again) Tj ET"),
  "<< /Type /FontDescriptor /FontName /Demo /Flags 32 /FontBBox [0 -200 1000 800] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 >>",
]);
