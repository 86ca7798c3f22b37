/**
 * The text items of a PDF's pages read directly, without pdfjs: the cross-reference, the page's
 * content streams and its fonts' text (`_pdf_fonts.ts`), next to nothing of the fonts' programs.
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
import type { PdfTextItem } from "./_pdf_layout.ts";
import { type FilePage, PdfFile } from "./_pdf_file.ts";
import { type Glyph, readFont, type TextFont } from "./_pdf_fonts.ts";
import {
  Command,
  type Dict,
  EOF,
  Lexer,
  Name,
  need,
  type PdfObject,
  PdfString,
  Ref,
  Stream,
  type Token,
  Unsupported,
} from "./_pdf_syntax.ts";

export { Unsupported };

/** A PDF opened for reading its pages' text directly. */
export class DirectPdf {
  readonly #file: PdfFile;
  readonly #pages: FilePage[];
  readonly #fonts = new Map<PdfObject, TextFont>();

  /** Opens the document; throws {@linkcode Unsupported} for a file it does not read. */
  constructor(bytes: Uint8Array) {
    this.#file = new PdfFile(bytes);
    this.#pages = this.#file.pages();
  }

  get pageCount(): number {
    return this.#pages.length;
  }

  /** The text items of a page, numbered from 1; throws {@linkcode Unsupported} for one it does not read. */
  page(number: number): PdfTextItem[] {
    const page = this.#pages[number - 1];
    need(page, "a page past the end");
    const items: PdfTextItem[] = [];
    const contents = this.#file.get(page.dict, "Contents");
    const streams = Array.isArray(contents)
      ? contents.map((c) => this.#file.resolve(c))
      : [contents];
    const parts: Uint8Array[] = [];
    for (const stream of streams) {
      if (stream === undefined || stream === null) continue;
      need(stream instanceof Stream, "a content stream that is not a stream");
      parts.push(this.#file.decode(stream));
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

type Matrix = number[];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

function transform(m1: Matrix, m2: Matrix): Matrix {
  return [
    m1[0]! * m2[0]! + m1[2]! * m2[1]!,
    m1[1]! * m2[0]! + m1[3]! * m2[1]!,
    m1[0]! * m2[2]! + m1[2]! * m2[3]!,
    m1[1]! * m2[2]! + m1[3]! * m2[3]!,
    m1[0]! * m2[4]! + m1[2]! * m2[5]! + m1[4]!,
    m1[1]! * m2[4]! + m1[3]! * m2[5]! + m1[5]!,
  ];
}

/** pdfjs's `TextState`: the graphics and text state that text items depend on. */
class TextState {
  ctm: Matrix = IDENTITY.slice();
  fontName: string | null = null;
  fontSize = 0;
  font: TextFont | null = null;
  textMatrix: Matrix = IDENTITY.slice();
  textLineMatrix: Matrix = IDENTITY.slice();
  charSpacing = 0;
  wordSpacing = 0;
  leading = 0;
  textHScale = 1;
  textRise = 0;

  translateTextMatrix(x: number, y: number): void {
    const m = this.textMatrix;
    m[4] = m[0]! * x + m[2]! * y + m[4]!;
    m[5] = m[1]! * x + m[3]! * y + m[5]!;
  }

  translateTextLineMatrix(x: number, y: number): void {
    const m = this.textLineMatrix;
    m[4] = m[0]! * x + m[2]! * y + m[4]!;
    m[5] = m[1]! * x + m[3]! * y + m[5]!;
  }

  carriageReturn(): void {
    this.translateTextLineMatrix(0, -this.leading);
    copy(this.textLineMatrix, this.textMatrix);
  }

  clone(): TextState {
    const clone = new TextState();
    clone.ctm = this.ctm;
    clone.fontName = this.fontName;
    clone.fontSize = this.fontSize;
    clone.font = this.font;
    clone.textMatrix = this.textMatrix.slice();
    clone.textLineMatrix = this.textLineMatrix.slice();
    clone.charSpacing = this.charSpacing;
    clone.wordSpacing = this.wordSpacing;
    clone.leading = this.leading;
    clone.textHScale = this.textHScale;
    clone.textRise = this.textRise;
    return clone;
  }
}

const TRACKING_SPACE_FACTOR = 0.102;
const NOT_A_SPACE_FACTOR = 0.03;
const NEGATIVE_SPACE_FACTOR = -0.2;
const SPACE_IN_FLOW_MIN_FACTOR = 0.102;
const SPACE_IN_FLOW_MAX_FACTOR = 0.6;
const VERTICAL_SHIFT_RATIO = 0.25;

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

/** The text item being built, as pdfjs's `textContentItem`. */
interface Building {
  initialized: boolean;
  str: string[];
  totalWidth: number;
  totalHeight: number;
  width: number;
  height: number;
  vertical: boolean;
  prevTransform: Matrix | null;
  prevTextRise: number;
  textAdvanceScale: number;
  spaceInFlowMin: number;
  spaceInFlowMax: number;
  trackingSpaceMin: number;
  negativeSpaceMax: number;
  notASpace: number;
  transform: Matrix | null;
  hasEOL: boolean;
}

/** One content stream (a page's, or a form's) read into text items: pdfjs's `getTextContent`. */
class TextReader {
  readonly #item: Building = {
    initialized: false,
    str: [],
    totalWidth: 0,
    totalHeight: 0,
    width: 0,
    height: 0,
    vertical: false,
    prevTransform: null,
    prevTextRise: 0,
    textAdvanceScale: 0,
    spaceInFlowMin: 0,
    spaceInFlowMax: 0,
    trackingSpaceMin: Infinity,
    negativeSpaceMax: -Infinity,
    notASpace: -Infinity,
    transform: null,
    hasEOL: false,
  };
  readonly #twoLastChars = [" ", " "];
  #twoLastCharsPos = 0;
  #state: TextState;
  readonly #stack: TextState[] = [];
  #textState!: TextState;
  #currentTextState: TextState | undefined;
  readonly #scratch: Matrix = [0, 0, 0, 0, 0, 0];
  readonly #glyphs: Glyph[] = [];

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
  }

  read(): void {
    const lexer = new Lexer(this.data);
    const operands: (PdfObject | Token)[] = [];
    for (;;) {
      const token = lexer.next();
      if (token === EOF) break;
      if (!(token instanceof Command)) {
        operands.push(
          token === "[" ? this.#array(lexer) : token === "<<" ? this.#dict(lexer) : token,
        );
        continue;
      }
      const operator = token.command;
      const count = OPERANDS[operator];
      need(count !== undefined, `the operator ${operator}`);
      need(count >= 0 ? operands.length === count : operands.length <= -count, "operand count");
      this.#operate(operator, operands);
      operands.length = 0;
    }
    this.#flush();
  }

  #array(lexer: Lexer): PdfObject[] {
    const array: PdfObject[] = [];
    for (;;) {
      const token = lexer.next();
      if (token === "]") return array;
      need(token !== EOF && !(token instanceof Command) && token !== ">>", "an array operand");
      array.push(token === "[" ? this.#array(lexer) : token === "<<" ? this.#dict(lexer) : token);
    }
  }

  #dict(lexer: Lexer): Dict {
    const dict: Dict = new Map();
    for (;;) {
      const key = lexer.next();
      if (key === ">>") return dict;
      need(key instanceof Name, "a dictionary operand's key");
      const value = lexer.next();
      need(
        value !== EOF && !(value instanceof Command) && value !== "]" && value !== ">>",
        "value",
      );
      dict.set(
        key.name,
        value === "[" ? this.#array(lexer) : value === "<<" ? this.#dict(lexer) : value,
      );
    }
  }

  #operate(operator: string, args: (PdfObject | Token)[]): void {
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
    const textState = this.#textState = this.#state;
    this.#currentTextState ??= textState.clone();
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
        this.#updateAdvanceScale();
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
            this.#build(chars, part * spaceFactor);
          } else throw new Unsupported("a TJ array item");
        }
        if (buffer.length > 0) this.#build(buffer, 0);
        break;
      }
      case "Tj":
        need(textState.font, "text before a font");
        this.#build(string(args[0]), 0);
        break;
      case "'":
        need(textState.font, "text before a font");
        textState.carriageReturn();
        this.#build(string(args[0]), 0);
        break;
      case '"': {
        need(textState.font, "text before a font");
        const [wordSpacing, charSpacing] = numbers(args.slice(0, 2), 2);
        textState.wordSpacing = wordSpacing!;
        textState.charSpacing = charSpacing!;
        textState.carriageReturn();
        this.#build(string(args[2]), 0);
        break;
      }
      case "Do":
        this.#flush();
        this.#form(args[0]);
        break;
      case "gs":
        this.#graphicsState(args[0]);
        break;
      case "BMC":
      case "BDC":
      case "EMC":
        this.#flush();
        break;
      case "d0":
      case "d1":
      case "BX":
      case "EX":
        throw new Unsupported(`the operator ${operator} in a page`);
    }
  }

  /** The resource of a kind (`XObject`, `ExtGState`) that an operand names. */
  #resource(kind: string, name: PdfObject | Token | undefined): PdfObject | undefined {
    need(name instanceof Name, `an operand that is not the name of an ${kind}`);
    const all = this.pdf.file.get(this.resources, kind);
    need(all instanceof Map, `resources without ${kind}`);
    return this.pdf.file.get(all, name.name);
  }

  #form(name: PdfObject | Token | undefined): void {
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

  #graphicsState(name: PdfObject | Token | undefined): void {
    const state = this.#resource("ExtGState", name);
    need(state instanceof Map, "a graphics state that is not a dictionary");
    need(!state.has("Font"), "a graphics state that sets the font");
  }

  // What follows is pdfjs's, as it is there (names and order kept, to be compared with it).

  #saveLastChar(char: string): boolean {
    const chars = this.#twoLastChars;
    const nextPos = (this.#twoLastCharsPos + 1) % 2;
    const ret = chars[this.#twoLastCharsPos] !== " " && chars[nextPos] === " ";
    chars[this.#twoLastCharsPos] = char;
    this.#twoLastCharsPos = nextPos;
    return ret;
  }

  #shouldAddWhitespace(): boolean {
    const chars = this.#twoLastChars;
    return chars[this.#twoLastCharsPos] !== " " && chars[(this.#twoLastCharsPos + 1) % 2] === " ";
  }

  #resetLastChars(): void {
    this.#twoLastChars[0] = this.#twoLastChars[1] = " ";
    this.#twoLastCharsPos = 0;
  }

  #pushWhitespace(
    { width = 0, height = 0, transform = this.#item.prevTransform }: {
      width?: number;
      height?: number;
      transform?: Matrix | null;
    },
  ): void {
    // A copy: the item's last place is written again in the same array as the next glyph comes.
    this.items.push({ str: " ", width, height, transform: transform!.slice(), hasEOL: false });
  }

  /**
   * `ctm × textMatrix × [fontSize × hScale, 0, 0, fontSize, 0, rise]`, as pdfjs computes it (the
   * same products and sums, those by zero included), without its two arrays between.
   */
  #currentTextTransform(out: Matrix = new Array(6)): Matrix {
    const { ctm: c, textMatrix: m, fontSize, textHScale, textRise } = this.#textState;
    const a = fontSize * textHScale;
    const t0 = m[0]! * a + m[2]! * 0;
    const t1 = m[1]! * a + m[3]! * 0;
    const t2 = m[0]! * 0 + m[2]! * fontSize;
    const t3 = m[1]! * 0 + m[3]! * fontSize;
    const t4 = m[0]! * 0 + m[2]! * textRise + m[4]!;
    const t5 = m[1]! * 0 + m[3]! * textRise + m[5]!;
    out[0] = c[0]! * t0 + c[2]! * t1;
    out[1] = c[1]! * t0 + c[3]! * t1;
    out[2] = c[0]! * t2 + c[2]! * t3;
    out[3] = c[1]! * t2 + c[3]! * t3;
    out[4] = c[0]! * t4 + c[2]! * t5 + c[4]!;
    out[5] = c[1]! * t4 + c[3]! * t5 + c[5]!;
    return out;
  }

  #ensureTextContentItem(): Building {
    const item = this.#item;
    if (item.initialized) return item;
    const state = this.#textState;
    const trm = item.transform = this.#currentTextTransform();
    item.width = item.totalWidth = 0;
    item.height = item.totalHeight = Math.hypot(trm[2]!, trm[3]!);
    item.vertical = false;
    const scaleLineX = Math.hypot(state.textLineMatrix[0]!, state.textLineMatrix[1]!);
    const scaleCtmX = Math.hypot(state.ctm[0]!, state.ctm[1]!);
    item.textAdvanceScale = scaleCtmX * scaleLineX;
    const { fontSize } = state;
    item.trackingSpaceMin = fontSize * TRACKING_SPACE_FACTOR;
    item.notASpace = fontSize * NOT_A_SPACE_FACTOR;
    item.negativeSpaceMax = fontSize * NEGATIVE_SPACE_FACTOR;
    item.spaceInFlowMin = fontSize * SPACE_IN_FLOW_MIN_FACTOR;
    item.spaceInFlowMax = fontSize * SPACE_IN_FLOW_MAX_FACTOR;
    item.hasEOL = false;
    item.initialized = true;
    return item;
  }

  #updateAdvanceScale(): void {
    const item = this.#item;
    if (!item.initialized) return;
    const state = this.#textState;
    const scaleLineX = Math.hypot(state.textLineMatrix[0]!, state.textLineMatrix[1]!);
    const scaleCtmX = Math.hypot(state.ctm[0]!, state.ctm[1]!);
    const scaleFactor = scaleCtmX * scaleLineX;
    if (scaleFactor === item.textAdvanceScale) return;
    item.totalWidth += item.width * item.textAdvanceScale;
    item.width = 0;
    item.textAdvanceScale = scaleFactor;
  }

  #compareWithLastPosition(glyphWidth: number): boolean {
    const item = this.#item;
    const state = this.#textState;
    // Read here and let go, so it is made in the same array each time.
    const currentTransform = this.#currentTextTransform(this.#scratch);
    let posX = currentTransform[4]!;
    let posY = currentTransform[5]!;
    const viewBox = this.viewBox;
    if (
      posX + glyphWidth < viewBox[0]! || posX > viewBox[2]! || posY < viewBox[1]! ||
      posY > viewBox[3]!
    ) {
      return false;
    }
    if (!state.font || !item.prevTransform) return true;
    let lastPosX = item.prevTransform[4]!;
    let lastPosY = item.prevTransform[5]!;
    if (lastPosX === posX && lastPosY === posY) return true;
    let rotate = -1;
    if (currentTransform[0] && currentTransform[1] === 0 && currentTransform[2] === 0) {
      rotate = currentTransform[0] > 0 ? 0 : 180;
    } else if (currentTransform[1] && currentTransform[0] === 0 && currentTransform[3] === 0) {
      rotate = currentTransform[1] > 0 ? 90 : 270;
    }
    switch (rotate) {
      case 0:
        break;
      case 90:
        [posX, posY] = [posY, posX];
        [lastPosX, lastPosY] = [lastPosY, lastPosX];
        break;
      case 180:
        [posX, posY, lastPosX, lastPosY] = [-posX, -posY, -lastPosX, -lastPosY];
        break;
      case 270:
        [posX, posY] = [-posY, -posX];
        [lastPosX, lastPosY] = [-lastPosY, -lastPosX];
        break;
      default:
        [posX, posY] = applyInverseRotation(posX, posY, currentTransform);
        [lastPosX, lastPosY] = applyInverseRotation(lastPosX, lastPosY, item.prevTransform);
    }
    const advanceX = (posX - lastPosX) / item.textAdvanceScale;
    const advanceY = posY - lastPosY;
    const textOrientation = Math.sign(item.width || item.totalWidth);
    if (advanceX < textOrientation * item.negativeSpaceMax) {
      if (Math.abs(advanceY) > 0.5 * item.height) {
        this.#appendEOL();
        return true;
      }
      this.#resetLastChars();
      this.#flush();
      return true;
    }
    const textRiseDelta = state.textRise - item.prevTextRise;
    const advanceYCorrected = textRiseDelta === 0
      ? advanceY
      : advanceY - currentTransform[3]! / state.fontSize * textRiseDelta;
    if (Math.abs(advanceYCorrected) > item.height) {
      this.#appendEOL();
      return true;
    }
    if (advanceX <= textOrientation * item.notASpace) this.#resetLastChars();
    if (advanceX <= textOrientation * item.trackingSpaceMin) {
      if (this.#shouldAddWhitespace()) {
        this.#resetLastChars();
        this.#flush();
        this.#pushWhitespace({ width: Math.abs(advanceX) });
      } else {
        item.width += advanceX;
      }
    } else if (!this.#addFakeSpaces(advanceX, item.prevTransform, textOrientation)) {
      if (item.str.length === 0) {
        this.#resetLastChars();
        this.#pushWhitespace({ width: Math.abs(advanceX) });
      } else {
        item.width += advanceX;
      }
    }
    if (Math.abs(advanceY) > item.height * VERTICAL_SHIFT_RATIO) this.#flush();
    return true;
  }

  #build(chars: string, extraSpacing: number): void {
    const textState = this.#textState;
    const current = this.#currentTextState!;
    if (
      current !== textState &&
      (current.fontSize !== textState.fontSize ||
        (current.fontName !== textState.fontName && current.font?.name !== textState.font!.name))
    ) {
      this.#flush();
      this.#currentTextState = textState.clone();
    }
    const font = textState.font!;
    const baseCharSpacing = textState.charSpacing;
    if (!chars) {
      const charSpacing = baseCharSpacing + extraSpacing;
      if (charSpacing) textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
      return;
    }
    const glyphs = font.glyphs(chars, this.#glyphs);
    const scale = font.matrix * textState.fontSize;
    for (let i = 0, ii = glyphs.length; i < ii; i++) {
      const glyph = glyphs[i]!;
      if (glyph.isInvisibleFormatMark) continue;
      let charSpacing = baseCharSpacing + (i + 1 === ii ? extraSpacing : 0);
      let scaledDim = glyph.width * scale;
      if (glyph.isSpace) charSpacing += textState.wordSpacing;
      if (glyph.isWhitespace) {
        charSpacing += scaledDim;
        textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
        this.#saveLastChar(" ");
        continue;
      }
      if (!glyph.isZeroWidthDiacritic && !this.#compareWithLastPosition(scaledDim)) {
        textState.translateTextMatrix(scaledDim * textState.textHScale, 0);
        continue;
      }
      const textChunk = this.#ensureTextContentItem();
      if (glyph.isZeroWidthDiacritic) scaledDim = 0;
      scaledDim *= textState.textHScale;
      textState.translateTextMatrix(scaledDim, 0);
      textChunk.width += scaledDim;
      if (scaledDim) {
        textChunk.prevTransform = this.#currentTextTransform(textChunk.prevTransform ?? undefined);
        textChunk.prevTextRise = textState.textRise;
      }
      if (this.#saveLastChar(glyph.unicode)) textChunk.str.push(" ");
      textChunk.str.push(glyph.unicode);
      if (charSpacing) textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
    }
  }

  #appendEOL(): void {
    this.#resetLastChars();
    const item = this.#item;
    if (item.initialized) {
      item.hasEOL = true;
      this.#flush();
    } else {
      this.items.push({
        str: "",
        width: 0,
        height: 0,
        transform: this.#currentTextTransform(),
        hasEOL: true,
      });
    }
  }

  #addFakeSpaces(width: number, transf: Matrix | null, textOrientation: number): boolean {
    const item = this.#item;
    if (
      textOrientation * item.spaceInFlowMin <= width &&
      width <= textOrientation * item.spaceInFlowMax
    ) {
      if (item.initialized) {
        this.#resetLastChars();
        item.str.push(" ");
      }
      return false;
    }
    this.#flush();
    this.#resetLastChars();
    this.#pushWhitespace({
      width: Math.abs(width),
      height: 0,
      transform: transf || this.#currentTextTransform(),
    });
    return true;
  }

  #flush(): void {
    const item = this.#item;
    if (!item.initialized) return;
    item.totalWidth += item.width * item.textAdvanceScale;
    this.items.push({
      str: textOf(item.str.join("")),
      width: Math.abs(item.totalWidth),
      height: Math.abs(item.totalHeight),
      transform: item.transform!,
      hasEOL: item.hasEOL,
    });
    item.initialized = false;
    item.str.length = 0;
  }
}

function applyInverseRotation(x: number, y: number, matrix: Matrix): [number, number] {
  const scale = Math.hypot(matrix[0]!, matrix[1]!);
  return [(matrix[0]! * x + matrix[1]! * y) / scale, (matrix[2]! * x + matrix[3]! * y) / scale];
}

/** Characters that pdfjs reorders as right-to-left text. */
const RIGHT_TO_LEFT = /[\u0590-\u05f4\u0600-\u08ac\ufb50-\ufdff\ufe70-\ufeff]/;

/** pdfjs's `normalizeUnicode`: compatibility forms (ligatures, spaces) in their usual form. */
const NORMALIZE =
  /([\u00a0\u00b5\u037e\u0eb3\u2000-\u200a\u202f\u2126\ufb00-\ufb04\ufb06\ufb20-\ufb36\ufb38-\ufb3c\ufb3e\ufb40\ufb41\ufb43\ufb44\ufb46-\ufba1\ufba4-\ufba9\ufbae-\ufbb1\ufbd3-\ufbdc\ufbde-\ufbe7\ufbea-\ufbf8\ufbfc\ufbfd\ufc00-\ufc5d\ufc64-\ufcf1\ufcf5-\ufd3d\ufd88\ufdf4\ufdfa\ufdfb\ufe71\ufe77\ufe79\ufe7b\ufe7d]+)|(\ufb05+)/gu;

/** An item's text as pdfjs gives it: normalized, and left to pdfjs when it reads right to left. */
function textOf(text: string): string {
  // Most items are all below U+00A0, where neither applies: looked at without a regular expression.
  let plain = true;
  for (let i = 0; i < text.length && plain; i++) plain = text.charCodeAt(i) < 0xa0;
  if (plain) return text;
  need(!RIGHT_TO_LEFT.test(text), "right-to-left text");
  return text.replaceAll(
    NORMALIZE,
    (_, compatible: string | undefined, longS: string | undefined) =>
      compatible ? compatible.normalize("NFKC") : "\u017ft".repeat(longS!.length),
  );
}

function numbers(args: readonly unknown[], count: number): number[] {
  need(args.length === count, "an operator's operands");
  for (let i = 0; i < count; i++) need(typeof args[i] === "number", "numeric operands");
  return args as number[];
}

/**
 * Copies a matrix into another: pdfjs gives the text state a new array where this writes the
 * same values in the one it has (no other state holds it: a clone copies its matrices).
 */
function copy(from: Matrix, to: Matrix): void {
  for (let i = 0; i < 6; i++) to[i] = from[i]!;
}

function string(arg: unknown): string {
  need(arg instanceof PdfString, "a text operator's string");
  return arg.bytes;
}
