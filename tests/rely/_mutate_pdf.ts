/**
 * Mutations of PDF structure: broken cross references, cyclic object references, absurd page
 * counts, garbage and bomb streams, and deeply nested arrays.
 * @module
 */
import { deflateSync } from "node:zlib";
import { fromLatin1, latin1, type Mutant } from "./_mutate_bytes.ts";
import type { Rng } from "./_rng.ts";

interface PdfObject {
  number: number;
  start: number;
  end: number;
}

/** The `N 0 obj ... endobj` objects of a file, in file order. */
function objects(text: string): PdfObject[] {
  const found: PdfObject[] = [];
  for (const match of text.matchAll(/(\d+) 0 obj\b/g)) {
    const end = text.indexOf("endobj", match.index);
    if (end > 0) found.push({ number: Number(match[1]), start: match.index, end });
  }
  return found;
}

/** The number of the first object whose dictionary says `/Type/<type>` (with or without a space). */
function objectOfType(text: string, type: string): number | undefined {
  return objects(text).find((o) =>
    new RegExp(`/Type\\s*/${type}\\b`).test(text.slice(o.start, o.end))
  )?.number;
}

function edit(
  bytes: Uint8Array,
  change: (text: string) => [string, string] | undefined,
): Mutant | undefined {
  const result = change(latin1(bytes));
  return result && { bytes: fromLatin1(result[0]), mutation: result[1] };
}

/** Replaces the match at a random one of the pattern's matches. */
function replaceOne(
  text: string,
  pattern: RegExp,
  rng: Rng,
  by: (match: RegExpExecArray) => string,
) {
  const matches = [
    ...text.matchAll(
      new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
    ),
  ];
  if (!matches.length) return undefined;
  const match = rng.pick(matches);
  return text.slice(0, match.index) + by(match) + text.slice(match.index + match[0].length);
}

/** The cross-reference table, its offset or the trailer is wrong, or its chain loops. */
export function brokenXref(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  return edit(bytes, (text) => {
    const kind = rng.pick(
      ["entries", "startxref", "keyword", "prev loop", "size", "root"] as const,
    );
    const startxref = text.match(/startxref\s+(\d+)/)?.[1] ?? "0";
    let out: string | undefined;
    let said = "";
    if (kind === "entries") {
      const count = rng.int(1, 8);
      out = text;
      for (let i = 0; i < count; i++) {
        out = replaceOne(out, /^\d{10} (\d{5}) ([nf])/m, rng, (m) =>
          `${String(rng.int(0, 1e10)).padStart(10, "0")} ${m[1]} ${m[2]}`) ?? out;
      }
      said = `${count} cross-reference entries point at random offsets`;
    } else if (kind === "startxref") {
      const value = rng.pick(["0", "1", "99999999999", "-1", String(rng.int(0, bytes.length))]);
      out = text.replace(/startxref\s+\d+/, `startxref\n${value}`);
      said = `startxref says ${value}`;
    } else if (kind === "keyword") {
      out = text.replace(/\nxref\b/, "\nxfer");
      said = "the xref keyword is gone";
    } else if (kind === "prev loop") {
      out = text.replace(/trailer\s*<</, `trailer\n<< /Prev ${startxref} `);
      said = "the trailer's /Prev points at its own table";
    } else if (kind === "size") {
      const value = rng.pick(["0", "2147483647", "99999999999", "-5"]);
      out = text.replace(/\/Size \d+/, `/Size ${value}`);
      said = `the trailer says /Size ${value}`;
    } else {
      const value = rng.pick(["0 0 R", "999 0 R", "3 0 R", "5 0 R", "null", "[]"]);
      out = text.replace(/\/Root \d+ 0 R/, `/Root ${value}`);
      said = `the trailer's /Root is ${value}`;
    }
    return out === undefined || out === text ? undefined : [out, said];
  });
}

/** A reference is rewired to its own object, the catalog or the page tree, making a cycle. */
export function cyclicReference(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  return edit(bytes, (text) => {
    const pages = objectOfType(text, "Pages");
    const catalog = objectOfType(text, "Catalog");
    const kind = rng.pick(["kids", "parent", "length", "any"] as const);
    if (kind === "kids" && pages !== undefined) {
      const kids = rng.pick([`${pages} 0 R`, `${catalog} 0 R`, `${pages} 0 R ${pages} 0 R`]);
      const out = text.replace(/\/Kids\s*\[[^\]]*\]/, `/Kids [${kids}]`);
      return [out, `the page tree's /Kids is [${kids}]`];
    }
    const all = objects(text);
    const pattern = kind === "parent"
      ? /\/Parent (\d+) 0 R/
      : kind === "length"
      ? /\/Length (\d+) 0 R/
      : /(\d+) 0 R/;
    const matches = [...text.matchAll(new RegExp(pattern.source, "g"))];
    if (!matches.length) return undefined;
    const match = rng.pick(matches);
    const self = all.findLast((o) => o.start < match.index!)?.number ?? 1;
    const was = Number(match[0].match(/(\d+) 0 R/)![1]);
    const targets = [self, pages, catalog].filter((n) => n !== undefined && n !== was);
    if (!targets.length) return undefined;
    const target = rng.pick(targets);
    const replaced = match[0].replace(/\d+ 0 R/, `${target} 0 R`);
    const out = text.slice(0, match.index) + replaced + text.slice(match.index! + match[0].length);
    return [out, `in object ${self}, "${match[0]}" became "${replaced}"`];
  });
}

/** The page tree declares an absurd page count, or lists one page many times. */
export function hugeCount(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  return edit(bytes, (text) => {
    if (rng.next() < 0.7) {
      const value = rng.pick(["2147483647", "4294967296", "-1", "1e308", "99999999", "0", "3.5"]);
      return [text.replace(/\/Count \d+/, `/Count ${value}`), `the page tree says /Count ${value}`];
    }
    const page = text.match(/\/Kids\s*\[\s*(\d+ 0 R)/)?.[1];
    if (!page) return undefined;
    const times = rng.pick([1_000, 10_000, 100_000]);
    const out = text
      .replace(/\/Kids\s*\[[^\]]*\]/, `/Kids [${`${page} `.repeat(times)}]`)
      .replace(/\/Count \d+/, `/Count ${times}`);
    return [out, `the page tree lists ${page} ${times} times`];
  });
}

/** A stream's content becomes random bytes, a flate bomb, or is given another filter. */
export function garbageStream(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  const text = latin1(bytes);
  const streams = [...text.matchAll(/stream\r?\n([\s\S]*?)endstream/g)];
  if (!streams.length) return undefined;
  const stream = rng.pick(streams);
  const start = stream.index + stream[0].indexOf("\n") + 1;
  const end = start + stream[1]!.length;
  const kind = rng.pick(["random", "random", "bomb", "filter"] as const);
  let content = text.slice(start, end);
  let head = text.slice(0, start);
  let said: string;
  if (kind === "random") {
    const length = rng.pick([content.length, rng.int(0, 64), rng.int(0, 65536)]);
    content = latin1(rng.bytes(length));
    said = `a stream at ${start} holds ${length} random bytes`;
  } else if (kind === "bomb") {
    const size = rng.pick([1, 16, 64]) * 1024 * 1024;
    const fill = rng.pick([" ", "0 ", "(a) Tj "]);
    // Text operators inside a text object, in the fixture's font, so that every one is a text item.
    const [before, after] = fill === "(a) Tj "
      ? ["BT /R7 12 Tf 1 0 0 1 23 791 Tm ", " ET"]
      : ["", ""];
    const plain = before + fill.repeat(Math.floor(size / fill.length)) + after;
    content = latin1(deflateSync(new TextEncoder().encode(plain), { level: 9 }));
    said = `a stream at ${start} inflates to ${size / 1024 / 1024} MiB of "${fill}"`;
  } else {
    const filter = rng.pick([
      "/LZWDecode",
      "/ASCII85Decode",
      "/ASCIIHexDecode",
      "/RunLengthDecode",
      "/CCITTFaxDecode",
      "/JBIG2Decode",
      "/DCTDecode",
      "/JPXDecode",
      "[/FlateDecode /FlateDecode]",
      "/Crypt",
    ]);
    const dictionary = head.lastIndexOf("/Filter");
    if (dictionary < 0) return undefined;
    head = head.slice(0, dictionary) +
      head.slice(dictionary).replace(/\/Filter\s*\/\w+/, `/Filter ${filter}`);
    said = `a stream at ${start} claims the filter ${filter}`;
  }
  return { bytes: fromLatin1(head + content + text.slice(end)), mutation: said };
}

/** A dictionary value becomes arrays nested 1,000 to 100,000 deep. */
export function deepArrays(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  return edit(bytes, (text) => {
    const depth = rng.pick([1_000, 10_000, 100_000]);
    const open = rng.pick(["[", "<<"]);
    const nested = open === "["
      ? "[".repeat(depth) + "]".repeat(depth)
      : "<</A ".repeat(depth) + ">>".repeat(depth);
    const key = rng.pick(["/MediaBox", "/Resources", "/Font", "/ProcSet"]);
    const out = replaceOne(
      text,
      new RegExp(`${key}\\s*(\\[[^\\]]*\\]|\\d+ 0 R)`),
      rng,
      () => `${key} ${nested}`,
    );
    return out === undefined ? undefined : [
      out,
      `${key} is ${open === "[" ? "arrays" : "dictionaries"} nested ${depth} deep`,
    ];
  });
}
