/**
 * Mutations of the ZIP archives that .docx and .pptx files are: absurd declared sizes, counts and
 * offsets written into the directory records, and XML parts replaced by hostile XML (deep nesting,
 * entity bombs, a slide listed a hundred thousand times) in an archive that is otherwise valid.
 * @module
 */
import JSZip from "jszip";
import type { Mutant, Mutator } from "./_mutate_bytes.ts";
import type { Rng } from "./_rng.ts";

interface CentralEntry {
  /** Where the entry's central directory header starts. */
  at: number;
  name: string;
  /** Where its local header starts, as the central header says. */
  local: number;
}

interface ZipLayout {
  /** Where the End Of Central Directory record starts. */
  end: number;
  entries: CentralEntry[];
}

/** The directory records of a well-formed archive (the fixtures), or undefined. */
function layout(bytes: Uint8Array): ZipLayout | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let at = bytes.length - 22; at >= 0; at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count && at + 46 <= end; i++) {
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    entries.push({ at, name, local: view.getUint32(at + 42, true) });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return { end, entries };
}

const ABSURD_32 = [0, 1, 0x7fffffff, 0xfffffffe, 0xffffffff] as const;

function absurd32(rng: Rng): number {
  return rng.next() < 0.7 ? rng.pick(ABSURD_32) : rng.int(0, 2 ** 32);
}

function withView(bytes: Uint8Array, change: (view: DataView) => string): Mutant {
  const out = bytes.slice();
  const mutation = change(new DataView(out.buffer));
  return { bytes: out, mutation };
}

/** An entry declares an absurd compressed or uncompressed size, in its central or local header. */
export function absurdSize(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  const zip = layout(bytes);
  if (!zip?.entries.length) return undefined;
  const entry = rng.pick(zip.entries);
  return withView(bytes, (view) => {
    const field = rng.pick(["compressed", "uncompressed"] as const);
    const where = rng.pick(["central", "local", "both"] as const);
    const value = absurd32(rng);
    if (where !== "local") {
      view.setUint32(entry.at + (field === "compressed" ? 20 : 24), value, true);
    }
    if (where !== "central") {
      view.setUint32(entry.local + (field === "compressed" ? 18 : 22), value, true);
    }
    return `entry "${entry.name}" declares a ${field} size of ${value} (${where} header)`;
  });
}

/** The end record declares an absurd entry count, directory size or directory offset. */
export function absurdCount(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  const zip = layout(bytes);
  if (!zip) return undefined;
  return withView(bytes, (view) => {
    const field = rng.pick(["count", "disk count", "directory size", "directory offset"] as const);
    if (field === "count" || field === "disk count") {
      const value = rng.pick([0, 1, 0xffff, 0xfffe, zip.entries.length + 1, rng.int(0, 0x10000)]);
      view.setUint16(zip.end + (field === "count" ? 10 : 8), value, true);
      return `end record declares a ${field} of ${value}`;
    }
    const value = absurd32(rng);
    view.setUint32(zip.end + (field === "directory size" ? 12 : 16), value, true);
    return `end record declares a ${field} of ${value}`;
  });
}

/** An entry points at an absurd local header offset, or declares absurd name or extra lengths. */
export function absurdOffset(bytes: Uint8Array, rng: Rng): Mutant | undefined {
  const zip = layout(bytes);
  if (!zip?.entries.length) return undefined;
  const entry = rng.pick(zip.entries);
  return withView(bytes, (view) => {
    const field = rng.pick(["offset", "name length", "extra length", "local name length"] as const);
    if (field === "offset") {
      const value = rng.pick([...ABSURD_32, bytes.length, bytes.length - 1, zip.end, entry.at]);
      view.setUint32(entry.at + 42, value, true);
      return `entry "${entry.name}" points at a local header at ${value}`;
    }
    const value = rng.pick([0, 0xffff, rng.int(0, 0x10000)]);
    const at = field === "name length"
      ? entry.at + 28
      : field === "extra length"
      ? entry.at + 30
      : entry.local + 26;
    view.setUint16(at, value, true);
    return `entry "${entry.name}" declares a ${field} of ${value}`;
  });
}

/** What a format's XML looks like, for the mutations that write XML parts. */
export interface OfficeParts {
  /** Parts worth replacing, the main one first. */
  parts: readonly string[];
  /** Element names to nest, in the format's namespaces. */
  elements: readonly string[];
  /** The main part's root start tags (with namespaces) and end tags, around the nesting. */
  open: string;
  close: string;
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const MC = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"';

export const DOCX_PARTS: OfficeParts = {
  parts: [
    "word/document.xml",
    "word/styles.xml",
    "word/numbering.xml",
    "word/_rels/document.xml.rels",
  ],
  elements: [
    "w:p",
    "w:r",
    "w:tbl",
    "w:tr",
    "w:tc",
    "w:sdt",
    "w:sdtContent",
    "w:hyperlink",
    "w:ins",
  ],
  open: `<w:document ${W}><w:body>`,
  close: "</w:body></w:document>",
};

export const PPTX_PARTS: OfficeParts = {
  parts: ["ppt/slides/slide1.xml", "ppt/presentation.xml", "ppt/_rels/presentation.xml.rels"],
  elements: ["p:grpSp", "p:sp", "p:txBody", "a:p", "a:r", "a:tbl", "a:tr", "a:tc", "mc:Fallback"],
  open: `<p:sld ${A} ${P} ${MC}><p:cSld><p:spTree>`,
  close: "</p:spTree></p:cSld></p:sld>",
};

// A fixed date for the parts written, so that a case's bytes depend on its seed alone.
const FIXED_DATE = new Date("2023-11-14T22:13:20Z");

async function replacePart(bytes: Uint8Array, part: string, xml: string): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(bytes);
  zip.file(part, xml, { date: FIXED_DATE });
  return await zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

/** A part replaced by elements nested 1,000 to 100,000 deep, closed or left open. */
export function deepXml(office: OfficeParts): Mutator {
  return async (bytes, rng) => {
    const part = rng.next() < 0.6 ? office.parts[0]! : rng.pick(office.parts);
    const depth = rng.pick([1_000, 10_000, 100_000]);
    const element = rng.pick(office.elements);
    const closed = rng.next() < 0.7;
    const inner = `<${element}>`.repeat(depth) + "<w:t>deep</w:t><a:t>deep</a:t>" +
      (closed ? `</${element}>`.repeat(depth) : "");
    const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
      (part === office.parts[0] ? `${office.open}${inner}${office.close}` : inner);
    return {
      bytes: await replacePart(bytes, part, xml),
      mutation: `"${part}" holds <${element}> nested ${depth} deep${
        closed ? "" : ", never closed"
      }`,
    };
  };
}

/** A part replaced by a "billion laughs" entity bomb. */
export function entityBomb(office: OfficeParts): Mutator {
  return async (bytes, rng) => {
    const part = rng.pick(office.parts);
    let dtd = '<!ENTITY l0 "ha">';
    for (let i = 1; i <= 10; i++) dtd += `<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`;
    const xml = `<?xml version="1.0"?><!DOCTYPE bomb [${dtd}]>` +
      `${office.open}<w:p><w:r><w:t>&l10;</w:t></w:r></w:p><a:p><a:r><a:t>&l10;</a:t></a:r></a:p>` +
      office.close;
    return { bytes: await replacePart(bytes, part, xml), mutation: `"${part}" is an entity bomb` };
  };
}

/** The presentation lists its first slide 1,000 to 100,000 times. */
export async function repeatedSlides(bytes: Uint8Array, rng: Rng): Promise<Mutant | undefined> {
  const zip = await JSZip.loadAsync(bytes);
  const presentation = await zip.file("ppt/presentation.xml")?.async("string");
  const first = presentation?.match(/<p:sldId [^>]*\/>/)?.[0];
  if (!presentation || !first) return undefined;
  const times = rng.pick([1_000, 10_000, 100_000]);
  zip.file(
    "ppt/presentation.xml",
    presentation.replace(
      /<p:sldIdLst>[\s\S]*?<\/p:sldIdLst>/,
      `<p:sldIdLst>${first.repeat(times)}</p:sldIdLst>`,
    ),
    { date: FIXED_DATE },
  );
  return {
    bytes: await zip.generateAsync({ type: "uint8array", compression: "DEFLATE" }),
    mutation: `the presentation lists its first slide ${times} times`,
  };
}
