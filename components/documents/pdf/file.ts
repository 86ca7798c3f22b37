/**
 * A PDF file's structure, read directly: its cross-reference tables and streams, its objects
 * (those of object streams included), its Flate streams inflated, and its pages in order with
 * what they inherit. Only what well-formed, unencrypted files hold: anything else is
 * {@linkcode Unsupported}, left to pdfjs.
 * @module
 */
import { constants, inflateSync } from "node:zlib";
import {
  formatCount,
  MAX_PAGE_REPEATS,
  MAX_PAGE_TREE_ENTRIES,
  MAX_PDF_DECODED_BYTES,
  MAX_PDF_PAGES,
  PdfLimitError,
} from "./limits.ts";
import { MAX_PDF_STREAM_RATIO } from "./streams.ts";
import { RATIO_CHECKED_FROM } from "../zip.ts";
import {
  Command,
  type Dict,
  EOF,
  latin1,
  Lexer,
  Name,
  need,
  Parser,
  type PdfObject,
  Ref,
  Stream,
  Unsupported,
} from "./syntax.ts";

/** A page as the text reader needs it. */
export interface FilePage {
  dict: Dict;
  resources: Dict;
  /** The visible area: the crop box within the media box, as `[x0, y0, x1, y1]`. */
  view: number[];
}

type Entry = { offset: number } | { stream: number; index: number };

const OBJ = Command.of("obj");
const STREAM = Command.of("stream");
const XREF = Command.of("xref");
const TRAILER = Command.of("trailer");

/** Letter size, pdfjs's page when the media box is missing or broken. */
const LETTER = [0, 0, 612, 792];

/** A PDF file opened for reading its objects. */
export class PdfFile {
  readonly #bytes: Uint8Array;
  readonly #entries = new Map<number, Entry>();
  readonly #objects = new Map<number, PdfObject>();
  readonly #objectStreams = new Map<number, { data: Uint8Array; offsets: Map<number, number> }>();
  readonly trailer: Dict;
  /** What may still be inflated: as much as `checkPdfStreams` allows the whole file. */
  #inflatable = MAX_PDF_DECODED_BYTES;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    const tail = latin1(bytes, Math.max(0, bytes.length - 1024));
    const found = tail.lastIndexOf("startxref");
    need(found >= 0, "no startxref");
    const offset = Number(/^startxref\s+(\d+)/.exec(tail.slice(found))?.[1]);
    need(Number.isSafeInteger(offset), "no cross-reference offset");
    let trailer: Dict | undefined;
    const seen = new Set<number>();
    for (let at: number | undefined = offset; at !== undefined;) {
      need(!seen.has(at) && at < bytes.length, "a cross-reference loop");
      seen.add(at);
      const section = this.#readSection(at);
      trailer ??= section;
      const prev = section.get("Prev");
      at = typeof prev === "number" ? prev : undefined;
    }
    need(trailer, "no trailer");
    need(!trailer.has("Encrypt"), "an encrypted file");
    this.trailer = trailer;
  }

  /** Reads one cross-reference section, table or stream, keeping the entries not seen newer. */
  #readSection(at: number): Dict {
    const lexer = new Lexer(this.#bytes, at);
    const parser = new Parser(lexer);
    const first = lexer.next();
    if (first === XREF) {
      for (;;) {
        const start = lexer.next();
        if (start === TRAILER) break;
        const count = lexer.next();
        need(typeof start === "number" && typeof count === "number", "a malformed xref table");
        for (let i = 0; i < count; i++) {
          const offset = lexer.next();
          const generation = lexer.next();
          const kind = lexer.next();
          need(typeof offset === "number" && typeof generation === "number", "a malformed entry");
          need(
            kind instanceof Command && (kind.command === "n" || kind.command === "f"),
            "an xref entry neither in use nor free",
          );
          const num = start + i;
          if (this.#entries.has(num)) continue;
          if (kind.command === "n" && offset > 0) this.#entries.set(num, { offset });
          else this.#entries.set(num, { offset: -1 });
        }
      }
      const trailer = parser.next();
      need(trailer instanceof Map, "a trailer that is not a dictionary");
      const hybrid = trailer.get("XRefStm");
      if (typeof hybrid === "number") this.#readSection(hybrid);
      return trailer;
    }
    need(typeof first === "number", "no cross-reference at its offset");
    const stream = this.#readIndirect(parser, at);
    need(
      stream instanceof Stream && this.get(stream.dict, "Type") === Name.of("XRef"),
      "a cross-reference offset that is neither a table nor an xref stream",
    );
    this.#readXrefStream(stream);
    return stream.dict;
  }

  #readXrefStream(stream: Stream): void {
    const dict = stream.dict;
    const widths = this.get(dict, "W");
    const size = this.get(dict, "Size");
    need(
      Array.isArray(widths) && widths.length === 3 && typeof size === "number",
      "an xref stream without its W of three widths and its Size",
    );
    const [w0, w1, w2] = widths as number[];
    need(
      widths.every((w) => typeof w === "number" && w >= 0 && w <= 8),
      "an xref stream's field width that is not 0 to 8 bytes",
    );
    const width = w0! + w1! + w2!;
    // Entries of no bytes would be read for as long as the Index counts, all alike.
    need(width > 0, "an xref stream whose entries take no bytes");
    const index = this.get(dict, "Index") ?? [0, size];
    need(
      Array.isArray(index) && index.length % 2 === 0 &&
        index.every((n) => Number.isSafeInteger(n) && (n as number) >= 0),
      "an xref stream's Index that is not pairs of whole numbers",
    );
    const data = this.decode(stream);
    let at = 0;
    const field = (length: number) => {
      let value = 0;
      for (let i = 0; i < length; i++) value = value * 256 + data[at++]!;
      return value;
    };
    for (let i = 0; i < index.length; i += 2) {
      const [start, count] = [index[i] as number, index[i + 1] as number];
      need(at + count * width <= data.length, "an xref stream shorter than its Index counts");
      for (let j = 0; j < count; j++) {
        const type = w0 === 0 ? 1 : field(w0!);
        const second = field(w1!);
        const third = field(w2!);
        const num = start + j;
        if (this.#entries.has(num)) continue;
        if (type === 1) this.#entries.set(num, { offset: second });
        else if (type === 2) this.#entries.set(num, { stream: second, index: third });
        else this.#entries.set(num, { offset: -1 });
      }
    }
  }

  /** Reads `num gen obj` and its object at `at`, with its stream if it has one. */
  #readIndirect(parser: Parser, at: number): PdfObject {
    const lexer = parser.lexer;
    lexer.position = at;
    const num = lexer.next();
    const gen = lexer.next();
    need(typeof num === "number" && typeof gen === "number" && lexer.next() === OBJ, "an object");
    const object = parser.next();
    need(object !== EOF && !(object instanceof Command), "an object that is a keyword");
    if (!(object instanceof Map)) return object;
    const save = lexer.position;
    if (lexer.next() !== STREAM) {
      lexer.position = save;
      return object;
    }
    let start = lexer.position;
    if (this.#bytes[start] === 0x0d) start++;
    need(this.#bytes[start] === 0x0a, "a stream keyword without its line end");
    start++;
    const length = this.resolve(object.get("Length"));
    need(typeof length === "number" && start + length <= this.#bytes.length, "a stream length");
    const after = new Lexer(this.#bytes, start + length);
    need(after.next() === Command.of("endstream"), "a stream whose length is wrong");
    return new Stream(object, this.#bytes.subarray(start, start + length));
  }

  /** The object a reference points to (null for a free or missing one); any other as it is. */
  resolve(object: PdfObject | undefined): PdfObject | undefined {
    return object instanceof Ref ? this.fetch(object) : object;
  }

  /** A dictionary's value, its reference resolved. */
  get(dict: Dict, key: string): PdfObject | undefined {
    return this.resolve(dict.get(key));
  }

  /** An indirect object, read once. */
  fetch(ref: Ref): PdfObject {
    const known = this.#objects.get(ref.num);
    if (known !== undefined) return known;
    const entry = this.#entries.get(ref.num);
    let object: PdfObject = null;
    if (entry && "stream" in entry) object = this.#fromObjectStream(entry.stream, entry.index);
    else if (entry && entry.offset >= 0) {
      object = this.#readIndirect(new Parser(new Lexer(this.#bytes)), entry.offset);
    }
    this.#objects.set(ref.num, object);
    return object;
  }

  #fromObjectStream(num: number, index: number): PdfObject {
    let objectStream = this.#objectStreams.get(num);
    if (!objectStream) {
      const stream = this.fetch(new Ref(num, 0));
      need(stream instanceof Stream, "an object stream that is not a stream");
      const count = this.get(stream.dict, "N");
      const first = this.get(stream.dict, "First");
      need(typeof count === "number" && typeof first === "number", "an object stream's header");
      const data = this.decode(stream);
      const lexer = new Lexer(data);
      const offsets = new Map<number, number>();
      for (let i = 0; i < count; i++) {
        const object = lexer.next();
        const offset = lexer.next();
        need(
          typeof object === "number" && typeof offset === "number",
          "an object stream whose offsets are not numbers",
        );
        offsets.set(i, first + offset);
      }
      this.#objectStreams.set(num, objectStream = { data, offsets });
    }
    const offset = objectStream.offsets.get(index);
    need(offset !== undefined, "an object missing from its object stream");
    const parser = new Parser(new Lexer(objectStream.data, offset));
    const object = parser.next();
    need(object !== EOF && !(object instanceof Command), "an object stream's object");
    return object;
  }

  /** A stream's data with its filters undone: Flate only, with or without a PNG predictor. */
  decode(stream: Stream): Uint8Array {
    let filters = this.get(stream.dict, "Filter");
    let parms = this.get(stream.dict, "DecodeParms");
    if (filters === undefined || filters === null) return stream.data;
    if (!Array.isArray(filters)) filters = [filters];
    if (!Array.isArray(parms)) parms = [parms ?? null];
    let data = stream.data;
    for (const [i, filter] of filters.entries()) {
      need(filter === Name.of("FlateDecode") || filter === Name.of("Fl"), "a filter not Flate");
      data = this.#inflate(data);
      const parm = this.resolve(parms[i] ?? null);
      if (parm instanceof Map) data = this.#unpredict(data, parm);
    }
    return data;
  }

  /**
   * Inflates zlib data within `checkPdfStreams`'s bounds (a ratio past 1 MiB, a total for the
   * file). A stream past them, damaged, or ending early is left to pdfjs, whose reading
   * `checkPdfStreams` guards: it refuses the file, naming the stream.
   */
  #inflate(data: Uint8Array): Uint8Array {
    const limit = Math.min(
      this.#inflatable,
      Math.max(RATIO_CHECKED_FROM, MAX_PDF_STREAM_RATIO * data.length),
    );
    let inflated: Uint8Array;
    try {
      inflated = inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: limit });
    } catch {
      throw new Unsupported("a Flate stream that does not inflate within bounds");
    }
    this.#inflatable -= inflated.length;
    return inflated;
  }

  #unpredict(data: Uint8Array, parms: Dict): Uint8Array {
    const predictor = this.get(parms, "Predictor") ?? 1;
    if (predictor === 1) return data;
    need(typeof predictor === "number" && predictor >= 10, "a TIFF predictor");
    const colors = this.get(parms, "Colors") ?? 1;
    const bits = this.get(parms, "BitsPerComponent") ?? 8;
    const columns = this.get(parms, "Columns") ?? 1;
    need(colors === 1 && bits === 8 && typeof columns === "number", "a predictor's parameters");
    const row = columns;
    const rows = Math.floor(data.length / (row + 1));
    const out = new Uint8Array(rows * row);
    for (let r = 0; r < rows; r++) {
      const type = data[r * (row + 1)]!;
      const input = r * (row + 1) + 1;
      const at = r * row;
      for (let i = 0; i < row; i++) {
        const raw = data[input + i]!;
        const left = i > 0 ? out[at + i - 1]! : 0;
        const up = r > 0 ? out[at - row + i]! : 0;
        const corner = r > 0 && i > 0 ? out[at - row + i - 1]! : 0;
        let value: number;
        switch (type) {
          case 0:
            value = raw;
            break;
          case 1:
            value = raw + left;
            break;
          case 2:
            value = raw + up;
            break;
          case 3:
            value = raw + ((left + up) >> 1);
            break;
          case 4: {
            const p = left + up - corner;
            const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - corner)];
            value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : corner);
            break;
          }
          default:
            throw new Unsupported("a PNG predictor's row type");
        }
        out[at + i] = value & 0xff;
      }
    }
    return out;
  }

  /**
   * The pages in order, each with the resources and boxes it inherits. A page listed more than
   * once is read by pdfjs ({@linkcode Unsupported}); a tree past `MAX_PAGE_TREE_ENTRIES`,
   * `MAX_PDF_PAGES` or `MAX_PAGE_REPEATS` is refused ({@linkcode PdfLimitError}) as soon as it is.
   */
  pages(): FilePage[] {
    const root = this.get(this.trailer, "Root");
    need(root instanceof Map, "no catalog");
    const top = this.get(root, "Pages");
    need(top instanceof Map, "no page tree");
    const pages: FilePage[] = [];
    // The nodes being walked, whose return would be a loop, and how often each page was listed.
    const walking = new Set<Dict>();
    const listed = new Map<Dict, number>();
    let entries = 0;
    const walk = (node: Dict, inherited: Map<string, PdfObject | undefined>) => {
      need(!walking.has(node), "a page tree loop");
      const here = new Map(inherited);
      for (const key of ["Resources", "MediaBox", "CropBox"]) {
        if (node.has(key)) here.set(key, this.get(node, key));
      }
      const type = this.get(node, "Type");
      const kids = this.get(node, "Kids");
      if (type === Name.of("Page") || (type === undefined && !Array.isArray(kids))) {
        const times = (listed.get(node) ?? 0) + 1;
        listed.set(node, times);
        if (times > MAX_PAGE_REPEATS) {
          throw new PdfLimitError(
            `its page tree lists one page more than ${formatCount(MAX_PAGE_REPEATS)} times`,
          );
        }
        if (pages.length === MAX_PDF_PAGES) {
          throw new PdfLimitError(`it has more than ${formatCount(MAX_PDF_PAGES)} pages`);
        }
        const resources = here.get("Resources");
        pages.push({
          dict: node,
          resources: resources instanceof Map ? resources : new Map(),
          view: view(here.get("MediaBox"), here.get("CropBox")),
        });
        return;
      }
      need(Array.isArray(kids), "a page tree node without kids");
      walking.add(node);
      for (const kid of kids) {
        if (++entries > MAX_PAGE_TREE_ENTRIES) {
          throw new PdfLimitError(
            `its page tree has more than ${formatCount(MAX_PAGE_TREE_ENTRIES)} entries`,
          );
        }
        const child = this.resolve(kid);
        need(child instanceof Map, "a page tree kid that is not a dictionary");
        walk(child, here);
      }
      walking.delete(node);
    };
    walk(top, new Map());
    need(this.get(top, "Count") === pages.length, "a page count that is not the pages'");
    need(listed.size === pages.length, "a page listed more than once");
    return pages;
  }
}

/** A rectangle as `[x0, y0, x1, y1]` with x0 ≤ x1 and y0 ≤ y1, or undefined if not one. */
function rect(box: PdfObject | undefined): number[] | undefined {
  if (!Array.isArray(box) || box.length !== 4 || !box.every((n) => typeof n === "number")) {
    return undefined;
  }
  const [a, b, c, d] = box as number[];
  return [Math.min(a!, c!), Math.min(b!, d!), Math.max(a!, c!), Math.max(b!, d!)];
}

/** pdfjs's `Page.view`: the crop box within the media box, if they overlap; else the media box. */
function view(mediaBox: PdfObject | undefined, cropBox: PdfObject | undefined): number[] {
  const media = rect(mediaBox);
  need(mediaBox === undefined || media, "a broken media box");
  const box = media ?? LETTER;
  const crop = rect(cropBox);
  need(cropBox === undefined || crop, "a broken crop box");
  if (!crop || crop.every((n, i) => n === box[i])) return box;
  const x0 = Math.max(box[0]!, crop[0]!);
  const y0 = Math.max(box[1]!, crop[1]!);
  const x1 = Math.min(box[2]!, crop[2]!);
  const y1 = Math.min(box[3]!, crop[3]!);
  return x1 - x0 > 0 && y1 - y0 > 0 ? [x0, y0, x1, y1] : box;
}
