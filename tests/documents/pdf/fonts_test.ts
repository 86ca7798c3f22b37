import assert from "node:assert/strict";
import { readToUnicode } from "../../../components/documents/pdf/fonts.ts";
import { Unsupported } from "../../../components/documents/pdf/syntax.ts";

Deno.test("readToUnicode() reads a CMap's characters and ranges as pdfjs does", () => {
  const map = readToUnicode(
    new TextEncoder().encode(
      "2 beginbfchar <01> <0041> <02> <D835DC00> endbfchar\n" +
        "2 beginbfrange <10> <12> <00FF> <20> <21> [<0066> <00660069>] endbfrange",
    ),
  );
  assert.deepEqual([...map].sort((a, b) => a[0] - b[0]), [
    [0x01, "A"],
    [0x02, "\u{1D400}"],
    [0x10, "\u00ff"],
    [0x11, "\u0100"],
    [0x12, "\u0101"],
    [0x20, "f"],
    [0x21, "fi"],
  ]);
  assert.throws(
    () =>
      readToUnicode(new TextEncoder().encode("/Other usecmap 1 beginbfchar <01> <41> endbfchar")),
    Unsupported,
  );
});
