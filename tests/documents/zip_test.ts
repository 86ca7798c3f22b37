import assert from "node:assert/strict";
import JSZip from "jszip";
import { checkZip, MAX_INFLATED_BYTES, MAX_ZIP_ENTRIES } from "../../components/documents/zip.ts";
import { fixture, refusal } from "./_helpers.ts";

const DOCX = { suffix: ".docx" };

function zip(files: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  const archive = new JSZip();
  for (const [path, data] of Object.entries(files)) archive.file(path, data);
  return archive.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The offset of the End Of Central Directory record (no archive comment in these tests). */
function endOfDirectory(bytes: Uint8Array): number {
  const at = bytes.length - 22;
  assert.equal(view(bytes).getUint32(at, true), 0x06054b50);
  return at;
}

/** The offset of the central directory header of the entry `name`. */
function centralHeader(bytes: Uint8Array, name: string): number {
  const end = endOfDirectory(bytes);
  let at = view(bytes).getUint32(end + 16, true);
  while (at < end) {
    const nameLength = view(bytes).getUint16(at + 28, true);
    if (new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)) === name) return at;
    at += 46 + nameLength + view(bytes).getUint16(at + 30, true) +
      view(bytes).getUint16(at + 32, true);
  }
  throw new Error(`no entry ${name}`);
}

/** The archive with a ZIP64 end record and locator, and "see ZIP64" in the classic end record. */
function withZip64End(bytes: Uint8Array, count?: number): Uint8Array {
  const end = endOfDirectory(bytes);
  const classic = view(bytes);
  const out = new Uint8Array(end + 56 + 20 + 22);
  out.set(bytes.subarray(0, end));
  const data = view(out);
  data.setUint32(end, 0x06064b50, true);
  data.setBigUint64(end + 4, 44n, true);
  data.setUint16(end + 12, 45, true);
  data.setUint16(end + 14, 45, true);
  const entries = BigInt(count ?? classic.getUint16(end + 10, true));
  data.setBigUint64(end + 24, entries, true);
  data.setBigUint64(end + 32, entries, true);
  data.setBigUint64(end + 40, BigInt(classic.getUint32(end + 12, true)), true);
  data.setBigUint64(end + 48, BigInt(classic.getUint32(end + 16, true)), true);
  data.setUint32(end + 56, 0x07064b50, true);
  data.setBigUint64(end + 64, BigInt(end), true);
  data.setUint32(end + 72, 1, true);
  out.set(bytes.subarray(end), end + 76);
  data.setUint16(end + 76 + 8, 0xffff, true);
  data.setUint16(end + 76 + 10, 0xffff, true);
  data.setUint32(end + 76 + 12, 0xffffffff, true);
  data.setUint32(end + 76 + 16, 0xffffffff, true);
  return out;
}

/** The archive with the sizes of entry `name` moved into a ZIP64 extra field. */
function withZip64Sizes(bytes: Uint8Array, name: string): Uint8Array {
  const at = centralHeader(bytes, name);
  const header = view(bytes);
  const nameEnd = at + 46 + header.getUint16(at + 28, true);
  const out = new Uint8Array(bytes.length + 20);
  out.set(bytes.subarray(0, nameEnd));
  out.set(bytes.subarray(nameEnd), nameEnd + 20);
  const data = view(out);
  data.setUint16(nameEnd, 0x0001, true);
  data.setUint16(nameEnd + 2, 16, true);
  data.setBigUint64(nameEnd + 4, BigInt(header.getUint32(at + 24, true)), true);
  data.setBigUint64(nameEnd + 12, BigInt(header.getUint32(at + 20, true)), true);
  data.setUint32(at + 20, 0xffffffff, true);
  data.setUint32(at + 24, 0xffffffff, true);
  data.setUint16(at + 30, header.getUint16(at + 30, true) + 20, true);
  const end = endOfDirectory(out);
  data.setUint32(end + 12, data.getUint32(end + 12, true) + 20, true);
  return out;
}

Deno.test("`checkZip` lists the entries of a .docx with their declared sizes", async () => {
  const entries = checkZip(await fixture("notes.docx"), "notes.docx", DOCX);
  const document = entries.find((entry) => entry.name === "word/document.xml");
  assert.ok(document);
  assert.equal(document.method, 8);
  assert.ok(document.uncompressedSize > document.compressedSize);
  assert.ok(entries.some((entry) => entry.name === "[Content_Types].xml"));
});

Deno.test("`checkZip` reads a ZIP64 end record and ZIP64 entry sizes", async () => {
  const bytes = await zip({ "a.txt": "alpha ".repeat(100), "b.txt": "bravo" });
  const expected = checkZip(bytes, "plain.docx", DOCX);
  assert.deepEqual(checkZip(withZip64End(bytes), "zip64.docx", DOCX), expected);
  assert.deepEqual(checkZip(withZip64Sizes(bytes, "a.txt"), "zip64.docx", DOCX), expected);
});

Deno.test("`checkZip` refuses a file that is not a ZIP, naming the format", async () => {
  await assert.rejects(
    async () => checkZip(await fixture("latin1.txt"), "latin1.pptx", { suffix: ".pptx" }),
    refusal('Cannot read "latin1.pptx": the file is not a ZIP archive (a .pptx file is one)'),
  );
});

Deno.test("`checkZip` refuses an OLE compound file as encrypted or legacy Office", () => {
  const bytes = new Uint8Array(1024);
  bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  assert.throws(
    () => checkZip(bytes, "secret.docx", DOCX),
    refusal('Cannot read "secret.docx": the file is encrypted or in the legacy Office format'),
  );
});

Deno.test("`checkZip` refuses a ZIP cut in half as truncated", async () => {
  const bytes = await fixture("truncated.docx");
  assert.throws(
    () => checkZip(bytes, "truncated.docx", DOCX),
    refusal('Cannot read "truncated.docx": the file is truncated'),
  );
});

Deno.test("`checkZip` refuses a central directory that points past the end", async () => {
  const bytes = await fixture("notes.docx");
  view(bytes).setUint32(endOfDirectory(bytes) + 16, bytes.length - 100, true);
  assert.throws(
    () => checkZip(bytes, "notes.docx", DOCX),
    refusal('Cannot read "notes.docx": the file is truncated'),
  );
});

Deno.test("`checkZip` refuses more than 10,000 entries, ZIP64 or not", async () => {
  const bytes = await zip({ "a.txt": "alpha" });
  const message = 'Cannot read "many.docx": the file has more than 10,000 entries';
  assert.throws(
    () => checkZip(withZip64End(bytes, MAX_ZIP_ENTRIES + 1), "many.docx", DOCX),
    refusal(message),
  );
  view(bytes).setUint16(endOfDirectory(bytes) + 10, MAX_ZIP_ENTRIES + 1, true);
  assert.throws(() => checkZip(bytes, "many.docx", DOCX), refusal(message));
});

Deno.test("`checkZip` refuses a zip bomb from its declared sizes, before inflating", async () => {
  const bytes = await fixture("bomb.docx");
  assert.ok(bytes.length < 1024 * 1024);
  const message = 'Cannot read "bomb.docx": the file would inflate to more than 256 MiB';
  assert.throws(() => checkZip(bytes, "bomb.docx", DOCX), refusal(message));
  // With its data destroyed, the bomb would be "damaged" if anything inflated it first.
  const entry = centralHeader(bytes, "word/document.xml");
  const local = view(bytes).getUint32(entry + 42, true);
  const dataStart = local + 30 + view(bytes).getUint16(local + 26, true) +
    view(bytes).getUint16(local + 28, true);
  const broken = bytes.slice();
  broken.fill(0xff, dataStart, dataStart + 64);
  assert.throws(() => checkZip(broken, "bomb.docx", DOCX), refusal(message));
  assert.equal(MAX_INFLATED_BYTES, 256 * 1024 * 1024);
});

Deno.test("`checkZip` refuses an entry over 1 MiB compressed more than 1,000 to 1", async () => {
  const bytes = await zip({ "zeros.bin": new Uint8Array(2 * 1024 * 1024) });
  assert.throws(
    () => checkZip(bytes, "zeros.docx", DOCX),
    refusal('Cannot read "zeros.docx": the entry "zeros.bin" is compressed more than 1,000 to 1'),
  );
  // Under 1 MiB any ratio is fine.
  checkZip(await zip({ "zeros.bin": new Uint8Array(1024 * 1024) }), "zeros.docx", DOCX);
});

Deno.test("`checkZip` refuses an entry whose header lies about its size", async () => {
  const text = "The same sentence again. ".repeat(400);
  const message =
    'Cannot read "liar.docx": the entry "word/document.xml" does not inflate to its declared size';
  for (const lie of [-1, 1, -9000]) {
    const bytes = await zip({ "word/document.xml": text });
    const at = centralHeader(bytes, "word/document.xml");
    view(bytes).setUint32(at + 24, text.length + lie, true);
    assert.throws(() => checkZip(bytes, "liar.docx", DOCX), refusal(message));
  }
});

Deno.test("`checkZip` refuses encrypted entries, unknown methods and damaged data", async () => {
  const fresh = () => zip({ "word/document.xml": "<w:document/>".repeat(50) });
  let bytes = await fresh();
  let at = centralHeader(bytes, "word/document.xml");
  view(bytes).setUint16(at + 8, view(bytes).getUint16(at + 8, true) | 1, true);
  assert.throws(
    () => checkZip(bytes, "locked.docx", DOCX),
    refusal('Cannot read "locked.docx": the file is encrypted'),
  );
  bytes = await fresh();
  at = centralHeader(bytes, "word/document.xml");
  view(bytes).setUint16(at + 10, 12, true);
  assert.throws(
    () => checkZip(bytes, "bzip2.docx", DOCX),
    refusal(
      'Cannot read "bzip2.docx": the entry "word/document.xml" uses an unsupported compression method',
    ),
  );
  bytes = await fresh();
  // 0xff starts a block of the reserved type 3, which no inflater accepts.
  const local = view(bytes).getUint32(centralHeader(bytes, "word/document.xml") + 42, true);
  const data = local + 30 + view(bytes).getUint16(local + 26, true) +
    view(bytes).getUint16(local + 28, true);
  bytes.fill(0xff, data, data + 8);
  assert.throws(
    () => checkZip(bytes, "damaged.docx", DOCX),
    refusal('Cannot read "damaged.docx": the entry "word/document.xml" is damaged'),
  );
});
