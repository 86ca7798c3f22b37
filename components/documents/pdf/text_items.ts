/**
 * The text items of a content stream as pdfjs's `getTextContent()` makes them (pdfjs 6.5's
 * `PartialEvaluator`, step for step, names and order kept so that it can be compared with it):
 * where a space goes between glyphs, where an item ends, where a line ends. `direct.ts` reads
 * the operators and gives this the glyphs each one shows, with the text state it shows them in.
 * @module
 */
import type { Glyph, TextFont } from "./fonts.ts";
import type { PdfTextItem } from "./layout.ts";
import { need } from "./syntax.ts";

/** An affine matrix as PDF writes it: `[a, b, c, d, e, f]`. */
export type Matrix = number[];
export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** `m1 × m2`, as pdfjs's `Util.transform` computes it. */
export function transform(m1: Matrix, m2: Matrix): Matrix {
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
export class TextState {
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

/** The text item being built, as pdfjs's `textContentItem`. */
interface Building {
  initialized: boolean;
  str: string[];
  totalWidth: number;
  totalHeight: number;
  width: number;
  height: number;
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

/** The items of one content stream (a page's, or a form's, which starts anew). */
export class TextItems {
  readonly #item: Building = {
    initialized: false,
    str: [],
    totalWidth: 0,
    totalHeight: 0,
    width: 0,
    height: 0,
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
  #textState!: TextState;
  #currentTextState: TextState | undefined;
  readonly #scratch: Matrix = [0, 0, 0, 0, 0, 0];
  readonly #glyphs: Glyph[] = [];

  constructor(readonly viewBox: number[], readonly items: PdfTextItem[]) {}

  /** The text state of the operator read now (pdfjs's `textState` at each of its operations). */
  at(state: TextState): void {
    this.#textState = state;
    this.#currentTextState ??= state.clone();
  }

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

  /** After `Tm`: the scale of an item's advances may have changed. */
  updateAdvanceScale(): void {
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
      this.flush();
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
        this.flush();
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
    if (Math.abs(advanceY) > item.height * VERTICAL_SHIFT_RATIO) this.flush();
    return true;
  }

  /** The glyphs of a string shown, `extraSpacing` after the last (a `TJ` array's number). */
  build(chars: string, extraSpacing: number): void {
    const textState = this.#textState;
    const current = this.#currentTextState!;
    if (
      current !== textState &&
      (current.fontSize !== textState.fontSize ||
        (current.fontName !== textState.fontName && current.font?.name !== textState.font!.name))
    ) {
      this.flush();
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
      this.flush();
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
    this.flush();
    this.#resetLastChars();
    this.#pushWhitespace({
      width: Math.abs(width),
      height: 0,
      transform: transf || this.#currentTextTransform(),
    });
    return true;
  }

  /** Ends the item being built, if any (at a form, marked content, and the stream's end). */
  flush(): void {
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

/**
 * Copies a matrix into another: pdfjs gives the text state a new array where this writes the
 * same values in the one it has (no other state holds it: a clone copies its matrices).
 */
export function copy(from: Matrix, to: Matrix): void {
  for (let i = 0; i < 6; i++) to[i] = from[i]!;
}
