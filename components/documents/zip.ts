/**
 * A guard for the ZIP archives that .docx and .pptx files are: it reads the central directory
 * itself and refuses archives that are not ZIPs, are truncated, or would inflate too far, before a
 * library inflates anything.
 * @module
 */
import { inflateRawSync } from "node:zlib";
import { quote, type SvcError, unreadable } from "../core/errors.ts";

/** The most bytes all entries of an archive may inflate to together: 256 MiB. */
export const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/** The most entries an archive may have. */
export const MAX_ZIP_ENTRIES = 10_000;

/** The highest compression ratio of an entry over {@linkcode RATIO_CHECKED_FROM} bytes. */
export const MAX_COMPRESSION_RATIO = 1_000;

/** Entries that inflate to at most this many bytes (1 MiB) may have any ratio. */
export const RATIO_CHECKED_FROM = 1024 * 1024;

/** An entry of an archive's central directory. */
export interface ZipEntry {
  /** The path inside the archive: `word/document.xml`. */
  name: string;
  /** The compression method: 0 stored, 8 deflated. */
  method: number;
  /** The size of the stored data. */
  compressedSize: number;
  /** The size the entry declares it inflates to. */
  uncompressedSize: number;
  /** Where the entry's local header starts. */
  offset: number;
}

/** Options of {@linkcode checkZip}. */
export interface CheckZipOptions {
  /** The suffix of the format the archive should be, for messages: `".docx"`. */
  suffix: string;
  /**
   * Called with each entry's content once it is verified, so that a handler can check parts
   * without inflating them twice; it throws to refuse the file.
   */
  inspect?: (entry: ZipEntry, content: Uint8Array) => void;
}

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const MAX_COMMENT = 0xffff;

/**
 * Checks that `bytes` are a ZIP archive that is safe to inflate, and lists its entries.
 *
 * Declared sizes are checked against the limits first, so a zip bomb is refused before anything
 * inflates. Declared sizes can lie, so every deflated entry is then inflated with its declared size
 * as the output limit, which catches a lying entry without allocating more than it declared.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkZip } from "./zip.ts";
 * const bytes = await Deno.readFile("tests/fixtures/notes.docx");
 * const entries = checkZip(bytes, "notes.docx", { suffix: ".docx" });
 * assert(entries.some((entry) => entry.name === "word/document.xml"));
 * ```
 *
 * @param name the document's name, for error messages
 * @throws {SvcError} 422 naming the document and the problem
 */
export function checkZip(bytes: Uint8Array, name: string, options: CheckZipOptions): ZipEntry[] {
  const entries = readCentralDirectory(bytes, name, options.suffix);
  let total = 0;
  for (const entry of entries) total += entry.uncompressedSize;
  if (total > MAX_INFLATED_BYTES) {
    throw unreadable(name, `the file would inflate to more than ${mebibytes(MAX_INFLATED_BYTES)}`);
  }
  for (const entry of entries) {
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize > RATIO_CHECKED_FROM && ratio > MAX_COMPRESSION_RATIO) {
      throw unreadable(
        name,
        `the entry ${quote(entry.name)} is compressed more than ${
          MAX_COMPRESSION_RATIO.toLocaleString("en-US")
        } to 1`,
      );
    }
  }
  for (const entry of entries) {
    const content = readEntry(bytes, entry, name);
    options.inspect?.(entry, content);
  }
  return entries;
}

function readCentralDirectory(bytes: Uint8Array, name: string, suffix: string): ZipEntry[] {
  // An encrypted Office file, or a .doc/.ppt, is an OLE compound file, not a ZIP.
  if (OLE_MAGIC.every((byte, i) => bytes[i] === byte)) {
    throw unreadable(name, "the file is encrypted or in the legacy Office format");
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(view);
  if (end < 0) {
    // A ZIP starts with a local header; without the end record, it was cut off.
    if (bytes.length >= 4 && view.getUint32(0, true) === LOCAL_HEADER) throw truncated(name);
    throw unreadable(name, `the file is not a ZIP archive (a ${suffix} file is one)`);
  }
  let count = view.getUint16(end + 10, true);
  let size = view.getUint32(end + 12, true);
  let start = view.getUint32(end + 16, true);
  let directoryEnd = end;
  if (count === 0xffff || size === 0xffffffff || start === 0xffffffff) {
    const zip64 = readZip64End(view, end);
    if (zip64) ({ count, size, start, directoryEnd } = zip64);
  }
  if (count > MAX_ZIP_ENTRIES) {
    throw unreadable(
      name,
      `the file has more than ${MAX_ZIP_ENTRIES.toLocaleString("en-US")} entries`,
    );
  }
  if (start + size > directoryEnd) throw truncated(name);

  const entries: ZipEntry[] = [];
  const names = new TextDecoder();
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at + 46 > start + size || view.getUint32(at, true) !== CENTRAL_HEADER) throw damaged(name);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const next = at + 46 + nameLength + extraLength + view.getUint16(at + 32, true);
    if (next > start + size) throw damaged(name);
    const entry: ZipEntry = {
      name: names.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
    };
    readZip64Extra(view, at + 46 + nameLength, extraLength, entry);
    const { compressedSize, uncompressedSize, offset } = entry;
    if (![compressedSize, uncompressedSize, offset].every(Number.isFinite)) throw damaged(name);
    if (view.getUint16(at + 8, true) & 1) throw unreadable(name, "the file is encrypted");
    entries.push(entry);
    at = next;
  }
  return entries;
}

/** The offset of the End Of Central Directory record, searched backwards past a comment; or -1. */
function findEndOfDirectory(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - MAX_COMMENT; at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) return at;
  }
  return -1;
}

/** The counts of a ZIP64 End Of Central Directory record, when its locator precedes `end`. */
function readZip64End(view: DataView, end: number) {
  const locator = end - 20;
  if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) return undefined;
  const record = Number(view.getBigUint64(locator + 8, true));
  if (record + 56 > locator || view.getUint32(record, true) !== ZIP64_END_OF_DIRECTORY) {
    return undefined;
  }
  return {
    count: Number(view.getBigUint64(record + 32, true)),
    size: Number(view.getBigUint64(record + 40, true)),
    start: Number(view.getBigUint64(record + 48, true)),
    directoryEnd: record,
  };
}

/** Replaces the 32-bit sizes and offset that say "see ZIP64" by the ZIP64 extra field's values. */
function readZip64Extra(view: DataView, at: number, length: number, entry: ZipEntry): void {
  for (let field = at; field + 4 <= at + length;) {
    const id = view.getUint16(field, true);
    const size = view.getUint16(field + 2, true);
    if (id === 0x0001) {
      let value = field + 4;
      const take = () => {
        const read = value + 8 <= field + 4 + size ? Number(view.getBigUint64(value, true)) : NaN;
        value += 8;
        return read;
      };
      // The field holds only the values whose 32-bit fields are 0xffffffff, in this order.
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = take();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = take();
      if (entry.offset === 0xffffffff) entry.offset = take();
      return;
    }
    field += 4 + size;
  }
}

/**
 * The content of an entry, once its data is where it says and inflates to its declared size: what
 * {@linkcode checkZip} checks every entry with, and what a handler reads a part with again
 * afterwards, since the guard keeps none of what it inflates.
 *
 * @throws {SvcError} 422 naming the document, as `checkZip` does
 */
export function readEntry(bytes: Uint8Array, entry: ZipEntry, name: string): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!(entry.offset + 30 <= bytes.length)) throw truncated(name);
  if (view.getUint32(entry.offset, true) !== LOCAL_HEADER) throw damaged(name);
  const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) +
    view.getUint16(entry.offset + 28, true);
  const end = start + entry.compressedSize;
  if (!(end <= bytes.length)) throw truncated(name);
  const mismatch = () =>
    unreadable(name, `the entry ${quote(entry.name)} does not inflate to its declared size`);
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.uncompressedSize) throw mismatch();
    return bytes.subarray(start, end);
  }
  if (entry.method !== 8) {
    throw unreadable(name, `the entry ${quote(entry.name)} uses an unsupported compression method`);
  }
  let inflated: Uint8Array;
  try {
    inflated = inflateRawSync(bytes.subarray(start, end), {
      maxOutputLength: Math.max(entry.uncompressedSize, 1),
    });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw mismatch();
    throw unreadable(name, `the entry ${quote(entry.name)} is damaged`, error);
  }
  if (inflated.length !== entry.uncompressedSize) throw mismatch();
  return inflated;
}

function truncated(name: string): SvcError {
  return unreadable(name, "the file is truncated");
}

function damaged(name: string): SvcError {
  return unreadable(name, "the file is a damaged ZIP archive");
}

function mebibytes(bytes: number): string {
  return `${bytes / 1024 / 1024} MiB`;
}
