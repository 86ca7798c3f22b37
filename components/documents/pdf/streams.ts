/**
 * A guard for the Flate streams and the page tree of a PDF, run before pdfjs reads the file: pdfjs
 * inflates a content stream whole and interprets every operator in it, so a stream of a few
 * kilobytes that inflates to megabytes of text operators takes seconds to minutes, and it walks
 * the page tree from its root for every page it reads.
 * @module
 */
import { Buffer } from "node:buffer";
import { constants, createInflate, inflateSync } from "node:zlib";
import { unreadable } from "../../core/errors.ts";
import { MAX_PDF_DECODED_BYTES, PdfLimitError } from "./limits.ts";
import { StructureScan } from "./structure_scan.ts";
import { RATIO_CHECKED_FROM } from "../zip.ts";

/**
 * The highest compression ratio of a stream that inflates to more than
 * {@linkcode RATIO_CHECKED_FROM} bytes. Real content streams, fonts and object streams compress
 * about 3 to 10 to 1; a stream that repeats the same operators compresses about 700 to 1.
 */
export const MAX_PDF_STREAM_RATIO = 100;

/** How far before the `stream` keyword its dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

/**
 * Refuses a PDF whose Flate streams (images aside, which reading text never decodes) would
 * inflate to more than `MAX_PDF_DECODED_BYTES` together, or one of which, inflating to more than
 * 1 MiB, is compressed more than {@linkcode MAX_PDF_STREAM_RATIO} to 1. Every stream is inflated
 * with its allowance as the output limit, so the check itself stays within the bound. A damaged
 * stream counts with what inflates before the damage, which pdfjs reads too; streams of other
 * filters are left to pdfjs. It also refuses a file past the limits of `limits.ts` on its
 * page tree and its pages' content streams, as the `/Kids` and `/Contents` entries of the file and
 * of its object streams count them (`StructureScan`).
 *
 * @throws {SvcError} 422 naming the document and the problem
 */
export async function checkPdfStreams(bytes: Uint8Array, name: string): Promise<void> {
  const structure = new StructureScan();
  const sizes = new Map<number, number>();
  try {
    structure.scan(bytes);
    await checkStreams(bytes, name, (object, dictionary, data) => {
      if (object !== undefined) sizes.set(object, data.length);
      if (/\/Type\s*\/ObjStm\b/.test(dictionary)) structure.scan(data);
    });
    structure.checkContentBytes(sizes);
  } catch (error) {
    if (error instanceof PdfLimitError) throw unreadable(name, error.message, error);
    throw error;
  }
}

/**
 * The streams' part of {@linkcode checkPdfStreams}: each stream that reading text may decode is
 * given to `seen` with its object number (when its header is found), its dictionary, and its data,
 * inflated where it is Flate, else as stored.
 */
async function checkStreams(
  bytes: Uint8Array,
  name: string,
  seen: (object: number | undefined, dictionary: string, data: Uint8Array) => void,
): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let remaining = MAX_PDF_DECODED_BYTES;
  let from = 0;
  let previousEnd = 0;
  while (true) {
    const keyword = buffer.indexOf("stream", from, "latin1");
    if (keyword < 0) return;
    from = keyword + 6;
    if (buffer.toString("latin1", Math.max(keyword - 3, 0), keyword) === "end") continue;
    let start = from;
    if (buffer[start] === 0x0d) start++;
    if (buffer[start] !== 0x0a) continue;
    start++;
    // The dictionary sits between the object's header and the keyword; never before the last
    // stream's end, which keeps the whole scan linear in the file's size.
    const window = buffer.toString(
      "latin1",
      Math.max(previousEnd, keyword - DICTIONARY_WINDOW),
      keyword,
    );
    // From the first digit of a run only: from each of a run's digits, the search would read the
    // rest of the run again (quadratic in a window of digits); a match inside a run is no other.
    const header = [...window.matchAll(/(?<!\d)(\d+)\s+\d+\s+obj\b/g)].at(-1);
    const dictionary = header ? window.slice(header.index) : window;
    const endstream = buffer.indexOf("endstream", start, "latin1");
    const end = endstream < 0 ? buffer.length : endstream;
    previousEnd = from = end;
    const object = header ? Number(header[1]) : undefined;
    if (/\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const flates = flateLayers(dictionary);
    if (flates === 0) {
      seen(object, dictionary, buffer.subarray(start, end));
      continue;
    }

    const allowance = Math.min(
      remaining,
      Math.max(RATIO_CHECKED_FROM, MAX_PDF_STREAM_RATIO * (end - start)),
    );
    let data: Uint8Array | "too large" = buffer.subarray(start, end);
    for (let layer = 0; layer < flates && data !== "too large"; layer++) {
      data = await inflateWithin(data, allowance);
    }
    if (data === "too large") {
      if (allowance === remaining) {
        throw unreadable(
          name,
          `the file would inflate to more than ${MAX_PDF_DECODED_BYTES / 2 ** 20} MiB`,
        );
      }
      const stream = header ? `the stream of object ${header[1]}` : "a stream";
      throw unreadable(name, `${stream} is compressed more than ${MAX_PDF_STREAM_RATIO} to 1`);
    }
    remaining -= data.length;
    seen(object, dictionary, data);
  }
}

/** How many FlateDecode filters the stream's /Filter starts with. */
function flateLayers(dictionary: string): number {
  // An array of filters ends at "]" and nests none: the search stops at the next "[" too, so that
  // "/Filter[" repeated without a "]" is not read to the end from each of them.
  const filter = dictionary.match(/\/Filter\s*(\[[^\][]*\]|\/[^\s/[<>()]+)/)?.[1];
  if (!filter) return 0;
  let count = 0;
  for (const name of filter.match(/\/[^\s/[\]<>()]+/g) ?? []) {
    if (name !== "/FlateDecode" && name !== "/Fl") break;
    count++;
  }
  return count;
}

/**
 * The inflated data, or "too large" when it would pass `limit`. Data that is damaged, or ends
 * early, gives what inflates before the damage: pdfjs reads that much of it too.
 */
async function inflateWithin(data: Uint8Array, limit: number): Promise<Uint8Array | "too large"> {
  try {
    return inflateSync(data, { maxOutputLength: limit, finishFlush: constants.Z_SYNC_FLUSH });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return "too large";
  }
  // The synchronous inflate keeps nothing of damaged data; a stream keeps what came before.
  return await new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    const chunks: Uint8Array[] = [];
    let length = 0;
    const finish = (result: Uint8Array | "too large") => {
      inflate.destroy();
      resolve(result);
    };
    inflate.on("data", (chunk: Uint8Array) => {
      length += chunk.length;
      if (length > limit) finish("too large");
      else chunks.push(chunk);
    });
    inflate.on("end", () => finish(Buffer.concat(chunks)));
    inflate.on("error", () => finish(Buffer.concat(chunks)));
    inflate.end(data);
  });
}
