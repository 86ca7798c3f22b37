/**
 * The text items of a PDF's pages read directly, without pdfjs: the cross-reference, the page's
 * content streams and its fonts' text (`fonts.ts`), next to nothing of the fonts' programs.
 * The items are those pdfjs's `getTextContent()` gives (its algorithm, from pdfjs 6.5's
 * `PartialEvaluator`, is kept step for step: where it puts a space, ends an item or marks a line's
 * end), so that a page reads the same either way; what this reader does not know (encryption,
 * damaged structure, filters other than Flate, fonts whose text needs more of their program,
 * inline images, right-to-left text) is {@linkcode Unsupported}, and pdfjs reads the page.
 *
 * It costs a fraction of pdfjs's time: pdfjs parses every font program (to draw) and compiles
 * every operator into a list, where reading text needs neither.
 * @module
 */
import type { PdfTextItem } from "./layout.ts";
import { type FilePage, PdfFile } from "./file.ts";
import { readFont, type TextFont } from "./fonts.ts";
import { copy, IDENTITY, TextItems, TextState, transform } from "./text_items.ts";
import {
  formatCount,
  MAX_CONTENT_STREAMS,
  MAX_PAGE_CONTENT_BYTES,
  MAX_PAGE_CONTENT_STREAMS,
  PdfLimitError,
} from "./limits.ts";
import {
  Command,
  type Dict,
  EOF,
  Lexer,
  Name,
  need,
  Parser,
  type PdfObject,
  PdfString,
  Ref,
  Stream,
  Unsupported,
} from "./syntax.ts";

/** A PDF opened for reading its pages' text directly. */
export class DirectPdf {
  readonly #file: PdfFile;
  readonly #pages: FilePage[];
  readonly #fonts = new Map<PdfObject, TextFont>();
  /** The content streams of the pages read so far. */
  #contentStreams = 0;

  /** Opens the document; throws {@linkcode Unsupported} for a file it does not read. */
  constructor(bytes: Uint8Array) {
    this.#file = new PdfFile(bytes);
    this.#pages = this.#file.pages();
  }

  get pageCount(): number {
    return this.#pages.length;
  }

  /**
   * The text items of a page, numbered from 1; throws {@linkcode Unsupported} for one it does not
   * read, and {@linkcode PdfLimitError} for one past `MAX_PAGE_CONTENT_STREAMS` or
   * `MAX_PAGE_CONTENT_BYTES`, or the page that passes `MAX_CONTENT_STREAMS`.
   */
  page(number: number): PdfTextItem[] {
    const page = this.#pages[number - 1];
    need(page, "a page past the end");
    const items: PdfTextItem[] = [];
    const contents = this.#file.get(page.dict, "Contents");
    const streams = Array.isArray(contents)
      ? contents.map((c) => this.#file.resolve(c))
      : [contents];
    if (streams.length > MAX_PAGE_CONTENT_STREAMS) {
      throw new PdfLimitError(
        `a page has more than ${formatCount(MAX_PAGE_CONTENT_STREAMS)} content streams`,
      );
    }
    this.#contentStreams += streams.length;
    if (this.#contentStreams > MAX_CONTENT_STREAMS) {
      throw new PdfLimitError(
        `it has more than ${formatCount(MAX_CONTENT_STREAMS)} content streams`,
      );
    }
    const parts: Uint8Array[] = [];
    let bytes = 0;
    for (const stream of streams) {
      if (stream === undefined || stream === null) continue;
      need(stream instanceof Stream, "a content stream that is not a stream");
      const part = this.#file.decode(stream);
      bytes += part.length;
      if (bytes > MAX_PAGE_CONTENT_BYTES) {
        throw new PdfLimitError(
          `a page's content inflates to more than ${MAX_PAGE_CONTENT_BYTES / 2 ** 20} MiB`,
        );
      }
      parts.push(part);
    }
    // pdfjs reads several content streams as one, a line feed after each.
    const data = parts.length === 1 ? parts[0]! : joined(parts);
    new TextReader(this, data, page.resources, new TextState(), page.view, items, 0).read();
    return items;
  }

  /** The font a resource dictionary names, read once per font object. */
  font(resources: Dict, name: string): TextFont {
    const fonts = this.#file.get(resources, "Font");
    need(fonts instanceof Map, "a page without fonts");
    const raw = fonts.get(name);
    need(raw !== undefined, "a font missing from the resources");
    const key = raw instanceof Ref ? raw.num : raw;
    let font = this.#fonts.get(key);
    if (!font) {
      const dict = this.#file.resolve(raw);
      need(dict instanceof Map, "a font that is not a dictionary");
      this.#fonts.set(key, font = readFont(this.#file, dict));
    }
    return font;
  }

  get file(): PdfFile {
    return this.#file;
  }
}

function joined(parts: Uint8Array[]): Uint8Array {
  const data = new Uint8Array(parts.reduce((sum, part) => sum + part.length + 1, 0));
  let at = 0;
  for (const part of parts) {
    data.set(part, at);
    at += part.length;
    data[at++] = 0x0a;
  }
  return data;
}

/** How many forms deep a page's content may draw forms. */
const MAX_FORM_DEPTH = 16;

/** The number of operands of each operator pdfjs knows; a negative one, at most that many. */
// deno-fmt-ignore
const OPERANDS: Record<string, number> = {
  w: 1, J: 1, j: 1, M: 1, d: 2, ri: 1, i: 1, gs: 1, q: 0, Q: 0, cm: 6, m: 2, l: 2, c: 6, v: 4,
  y: 4, h: 0, re: 4, S: 0, s: 0, f: 0, F: 0, "f*": 0, B: 0, "B*": 0, b: 0, "b*": 0, n: 0, W: 0,
  "W*": 0, BT: 0, ET: 0, Tc: 1, Tw: 1, Tz: 1, TL: 1, Tf: 2, Tr: 1, Ts: 1, Td: 2, TD: 2, Tm: 6,
  "T*": 0, Tj: 1, TJ: 1, "'": 1, '"': 3, d0: 2, d1: 6, CS: 1, cs: 1, SC: -4, SCN: -33, sc: -4,
  scn: -33, G: 1, g: 1, RG: 3, rg: 3, K: 4, k: 4, sh: 1, Do: 1, MP: 1, DP: 2, BMC: 1, BDC: 2,
  EMC: 0, BX: 0, EX: 0,
};

/** One content stream (a page's, or a form's) read into text items: pdfjs's `getTextContent`. */
class TextReader {
  #state: TextState;
  readonly #stack: TextState[] = [];
  readonly #items: TextItems;

  constructor(
    readonly pdf: DirectPdf,
    readonly data: Uint8Array,
    readonly resources: Dict,
    state: TextState,
    readonly viewBox: number[],
    readonly items: PdfTextItem[],
    readonly depth: number,
  ) {
    this.#state = state;
    this.#items = new TextItems(viewBox, items);
  }

  read(): void {
    const parser = new Parser(new Lexer(this.data), { references: false });
    const operands: PdfObject[] = [];
    for (let object = parser.next(); object !== EOF; object = parser.next()) {
      if (!(object instanceof Command)) {
        operands.push(object);
        continue;
      }
      const operator = object.command;
      const count = OPERANDS[operator];
      need(count !== undefined, `the operator ${operator}`);
      need(
        count >= 0 ? operands.length === count : operands.length <= -count,
        `the operator ${operator} with ${operands.length} operands`,
      );
      this.#operate(operator, operands);
      operands.length = 0;
    }
    this.#items.flush();
  }

  #operate(operator: string, args: PdfObject[]): void {
    switch (operator) {
      case "q":
        this.#stack.push(this.#state);
        this.#state = this.#state.clone();
        break;
      case "Q": {
        const previous = this.#stack.pop();
        if (previous) this.#state = previous;
        break;
      }
      case "cm":
        this.#state.ctm = transform(this.#state.ctm, numbers(args, 6));
        break;
    }
    const textState = this.#state;
    this.#items.at(textState);
    switch (operator) {
      case "Tf": {
        const [name, size] = args;
        need(name instanceof Name && typeof size === "number", "a Tf's operands");
        if (textState.font && name.name === textState.fontName && size === textState.fontSize) {
          break;
        }
        textState.fontName = name.name;
        textState.fontSize = size;
        textState.font = this.pdf.font(this.resources, name.name);
        break;
      }
      case "Ts":
        textState.textRise = numbers(args, 1)[0]!;
        break;
      case "Tz":
        textState.textHScale = numbers(args, 1)[0]! / 100;
        break;
      case "TL":
        textState.leading = numbers(args, 1)[0]!;
        break;
      case "Td": {
        const [x, y] = numbers(args, 2);
        textState.translateTextLineMatrix(x!, y!);
        copy(textState.textLineMatrix, textState.textMatrix);
        break;
      }
      case "TD": {
        const [x, y] = numbers(args, 2);
        textState.leading = -y!;
        textState.translateTextLineMatrix(x!, y!);
        copy(textState.textLineMatrix, textState.textMatrix);
        break;
      }
      case "T*":
        textState.carriageReturn();
        break;
      case "Tm": {
        const m = numbers(args, 6);
        copy(m, textState.textMatrix);
        copy(m, textState.textLineMatrix);
        this.#items.updateAdvanceScale();
        break;
      }
      case "Tc":
        textState.charSpacing = numbers(args, 1)[0]!;
        break;
      case "Tw":
        textState.wordSpacing = numbers(args, 1)[0]!;
        break;
      case "BT":
        copy(IDENTITY, textState.textMatrix);
        copy(IDENTITY, textState.textLineMatrix);
        break;
      case "TJ": {
        need(textState.font, "text before a font");
        const [array] = args;
        need(Array.isArray(array), "a TJ's operand");
        const spaceFactor = -textState.fontSize / 1000;
        let buffer = "";
        for (const part of array) {
          if (part instanceof PdfString) buffer += part.bytes;
          else if (typeof part === "number") {
            if (part === 0) continue;
            const chars = buffer;
            buffer = "";
            this.#items.build(chars, part * spaceFactor);
          } else throw new Unsupported("a TJ array item");
        }
        if (buffer.length > 0) this.#items.build(buffer, 0);
        break;
      }
      case "Tj":
        need(textState.font, "text before a font");
        this.#items.build(string(args[0]), 0);
        break;
      case "'":
        need(textState.font, "text before a font");
        textState.carriageReturn();
        this.#items.build(string(args[0]), 0);
        break;
      case '"': {
        need(textState.font, "text before a font");
        const [wordSpacing, charSpacing] = numbers(args.slice(0, 2), 2);
        textState.wordSpacing = wordSpacing!;
        textState.charSpacing = charSpacing!;
        textState.carriageReturn();
        this.#items.build(string(args[2]), 0);
        break;
      }
      case "Do":
        this.#items.flush();
        this.#form(args[0]);
        break;
      case "gs":
        this.#graphicsState(args[0]);
        break;
      case "BMC":
      case "BDC":
      case "EMC":
        this.#items.flush();
        break;
      case "d0":
      case "d1":
      case "BX":
      case "EX":
        throw new Unsupported(`the operator ${operator} in a page`);
    }
  }

  /** The resource of a kind (`XObject`, `ExtGState`) that an operand names. */
  #resource(kind: string, name: PdfObject | undefined): PdfObject | undefined {
    need(name instanceof Name, `an operand that is not the name of an ${kind}`);
    const all = this.pdf.file.get(this.resources, kind);
    need(all instanceof Map, `resources without ${kind}`);
    return this.pdf.file.get(all, name.name);
  }

  #form(name: PdfObject | undefined): void {
    const file = this.pdf.file;
    const xobject = this.#resource("XObject", name);
    need(xobject instanceof Stream, "an XObject that is not a stream");
    const subtype = file.get(xobject.dict, "Subtype");
    need(subtype instanceof Name, "an XObject without a subtype");
    if (subtype.name !== "Form") return;
    need(this.depth < MAX_FORM_DEPTH, "forms too deep");
    const state = this.#state.clone();
    const matrix = file.get(xobject.dict, "Matrix");
    if (matrix !== undefined) {
      need(Array.isArray(matrix) && matrix.length === 6, "a form's matrix");
      state.ctm = transform(state.ctm, numbers(matrix, 6));
    }
    const own = file.get(xobject.dict, "Resources");
    new TextReader(
      this.pdf,
      file.decode(xobject),
      own instanceof Map ? own : this.resources,
      state,
      this.viewBox,
      this.items,
      this.depth + 1,
    ).read();
  }

  #graphicsState(name: PdfObject | undefined): void {
    const state = this.#resource("ExtGState", name);
    need(state instanceof Map, "a graphics state that is not a dictionary");
    need(!state.has("Font"), "a graphics state that sets the font");
  }
}

function numbers(args: readonly unknown[], count: number): number[] {
  need(args.length === count, "an operator's operands");
  for (let i = 0; i < count; i++) need(typeof args[i] === "number", "numeric operands");
  return args as number[];
}

function string(arg: unknown): string {
  need(arg instanceof PdfString, "a text operator's string");
  return arg.bytes;
}
