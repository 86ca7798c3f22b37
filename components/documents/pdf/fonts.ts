/**
 * The fonts of a PDF as reading text needs them: for each character code, the text it stands for
 * and how far it advances, as pdfjs reckons them (`Font._charToGlyph` of pdfjs 6.5): simple Type 1,
 * Type 1C and TrueType fonts that embed their program, their text from their `ToUnicode` map, their
 * encoding and the names of their glyphs, or a Type 1 program's own encoding; and Type 0 fonts of
 * two-byte `Identity-H` codes with a `ToUnicode` map. Of the programs, only the matrix that scales
 * the widths and a Type 1 program's encoding are read. Any other font, or a code whose text pdfjs
 * takes from another part of a program, is {@linkcode Unsupported}, left to pdfjs.
 * @module
 */
import type { PdfFile } from "./file.ts";
import {
  Command,
  type Dict,
  EOF,
  latin1,
  Lexer,
  Name,
  need,
  PdfString,
  Stream,
  Unsupported,
} from "./syntax.ts";
import { baseEncoding, glyphList } from "./glyphs.ts";

/** A character of a font, as the text reader places it. */
export interface Glyph {
  unicode: string;
  /** Its advance, in thousandths of the font size. */
  width: number;
  /** Whether its code is the single byte 32, which word spacing applies to. */
  isSpace: boolean;
  isWhitespace: boolean;
  isZeroWidthDiacritic: boolean;
  isInvisibleFormatMark: boolean;
}

/** A font of a page, as the text reader uses it. */
export class TextFont {
  readonly #text: (code: number) => string;
  readonly #widths: Map<number, number>;
  readonly #defaultWidth: number;
  readonly #twoBytes: boolean;
  /** The first value of the font's matrix: a glyph's advance is its width times this and the size. */
  readonly matrix: number;
  /** The glyphs made, a two-byte font's by code, a simple font's in an array (faster to look in). */
  readonly #glyphs = new Map<number, Glyph>();
  readonly #byByte: (Glyph | undefined)[] = new Array(256);

  constructor(
    /** The font's name, as pdfjs compares fonts by it. */
    readonly name: string,
    options: {
      /** The text of a code; throws {@linkcode Unsupported} for one pdfjs takes from the program. */
      text: (code: number) => string;
      widths: Map<number, number>;
      defaultWidth: number;
      twoBytes: boolean;
      matrix: number;
    },
  ) {
    this.matrix = options.matrix;
    this.#text = options.text;
    this.#widths = options.widths;
    this.#defaultWidth = options.defaultWidth;
    this.#twoBytes = options.twoBytes;
  }

  /**
   * The glyphs of a string of codes as a text operator shows it, in `out` (emptied first, so that
   * a reader reuses one array rather than making one per string).
   */
  glyphs(chars: string, out: Glyph[]): Glyph[] {
    out.length = 0;
    if (this.#twoBytes) {
      need(chars.length % 2 === 0, "a two-byte string of odd length");
      for (let i = 0; i < chars.length; i += 2) {
        const code = (chars.charCodeAt(i) << 8) | chars.charCodeAt(i + 1);
        let glyph = this.#glyphs.get(code);
        if (!glyph) this.#glyphs.set(code, glyph = this.#glyph(code, false));
        out.push(glyph);
      }
    } else {
      for (let i = 0; i < chars.length; i++) {
        const code = chars.charCodeAt(i);
        out.push(this.#byByte[code] ?? (this.#byByte[code] = this.#glyph(code, code === 0x20)));
      }
    }
    return out;
  }

  #glyph(code: number, isSpace: boolean): Glyph {
    const unicode = this.#text(code);
    const groups = SPECIAL.exec(unicode);
    return {
      unicode,
      width: this.#widths.get(code) ?? this.#defaultWidth,
      isSpace,
      isWhitespace: !!groups?.[1],
      isZeroWidthDiacritic: !!groups?.[2],
      isInvisibleFormatMark: !!groups?.[3],
    };
  }
}

const SPECIAL = /^(?:(\s+)|(\p{Mn}+)|(\p{Cf}+))$/u;

/** Reads the font a dictionary describes, or ends the direct reading. */
export function readFont(file: PdfFile, dict: Dict): TextFont {
  const subtype = file.get(dict, "Subtype");
  const toUnicode = file.get(dict, "ToUnicode");
  // pdfjs reads a map that is not a stream (a name) otherwise, and takes an empty one for none.
  need(toUnicode === undefined || toUnicode instanceof Stream, "a ToUnicode map of a name");
  const unicode = toUnicode && readToUnicode(file.decode(toUnicode));
  if (subtype === Name.of("Type0")) {
    need(unicode && unicode.size > 0, "a Type 0 font without a ToUnicode map");
    return readType0(file, dict, unicode);
  }
  need(
    subtype === Name.of("Type1") || subtype === Name.of("TrueType") ||
      subtype === Name.of("MMType1"),
    "a font of another type",
  );
  const descriptor = file.get(dict, "FontDescriptor");
  need(descriptor instanceof Map, "a font without a descriptor");
  const name = fontName(file, dict, descriptor);
  const matrix = fontMatrix(file, dict, descriptor);
  // pdfjs's `adjustWidths`: widths in thousandths once the font's own matrix is applied.
  const adjust = matrix === 0.001 ? 1 : 0.001 / matrix;
  const widths = new Map<number, number>();
  const list = file.get(dict, "Widths");
  need(Array.isArray(list), "a simple font without widths");
  const first = file.get(dict, "FirstChar");
  let code = Number.isInteger(first) ? first as number : 0;
  for (const entry of list) {
    const width = file.resolve(entry);
    if (typeof width === "number") widths.set(code, adjust === 1 ? width : width * adjust);
    code++;
  }
  const missing = file.get(descriptor, "MissingWidth");
  const defaultWidth = typeof missing === "number" ? missing : 0;
  return new TextFont(name, {
    widths,
    defaultWidth: adjust === 1 ? defaultWidth : defaultWidth * adjust,
    twoBytes: false,
    text: simpleText(file, dict, descriptor, unicode?.size ? unicode : undefined),
    matrix,
  });
}

/**
 * The first value of the matrix pdfjs gives a simple font, which scales its widths: the font
 * program's (a Type 1 program's clear-text header, a CFF program's top dictionary), else the
 * font dictionary's, else a thousandth. A font that embeds no program, or one of another kind
 * than these, is left to pdfjs.
 */
function fontMatrix(file: PdfFile, dict: Dict, descriptor: Dict): number {
  const own = file.get(dict, "FontMatrix");
  let matrix = Array.isArray(own) && own.length === 6 && own.every((n) => typeof n === "number")
    ? own[0] as number
    : 0.001;
  const header = type1Header(file, descriptor);
  if (header !== undefined) {
    // The matrix is six numbers: its search stops at the next opening bracket too, so that
    // "/FontMatrix[" repeated without a closing one is not read to the end from each of them.
    const found = /\/FontMatrix\s*[[{]\s*([^\][{}]*)[\]}]/.exec(header);
    if (found) {
      const values = found[1]!.trim().split(/\s+/).map((token) => parseFloat(token || "0"));
      need(values.length === 6 && values.every(Number.isFinite), "a font matrix");
      matrix = values[0]!;
    }
    return matrix;
  }
  if (file.get(descriptor, "FontFile2") instanceof Stream) return matrix;
  const cff = file.get(descriptor, "FontFile3");
  need(cff instanceof Stream, "a font that is not embedded");
  const subtype = file.get(cff.dict, "Subtype");
  need(
    subtype === Name.of("Type1C") || subtype === Name.of("CIDFontType0C"),
    "a font program neither Type 1C nor CIDFontType0C",
  );
  return cffFontMatrix(file.decode(cff)) ?? 0.001;
}

const headers = new WeakMap<Stream, string>();

/** The clear-text header of a font's Type 1 program (up to `eexec`), if it embeds one. */
function type1Header(file: PdfFile, descriptor: Dict): string | undefined {
  const program = file.get(descriptor, "FontFile");
  if (!(program instanceof Stream)) return undefined;
  let header = headers.get(program);
  if (header === undefined) {
    const data = file.decode(program);
    const length1 = file.get(program.dict, "Length1");
    const end = typeof length1 === "number" && length1 <= data.length ? length1 : data.length;
    header = latin1(data, 0, end);
    const eexec = header.indexOf("eexec");
    if (eexec >= 0) header = header.slice(0, eexec);
    headers.set(program, header);
  }
  return header;
}

/**
 * The encoding a Type 1 program's header gives (`/Encoding StandardEncoding def`, or an array
 * filled by `dup 65 /A put`), as glyph names by code; none when it gives none.
 */
function type1Encoding(header: string): readonly string[] {
  const found = /\/Encoding\s+(\S+)/.exec(header);
  if (!found) return [];
  // A name pdfjs does not know gives no encoding.
  if (!/^\d+$/.test(found[1]!)) return baseEncoding(found[1]!) ?? [];
  const names: string[] = [];
  const rest = header.slice(found.index + found[0].length);
  const end = rest.search(/\bdef\b/);
  for (
    const entry of (end < 0 ? rest : rest.slice(0, end)).matchAll(/dup\s+(\d+)\s*\/(\S+)\s+put/g)
  ) {
    names[Number(entry[1])] = entry[2]!;
  }
  return names;
}

/**
 * The first value of a CFF font's `FontMatrix` (operator 12 7 of its top dictionary), if it has
 * one: pdfjs scales the widths by it alone, a CID-keyed font's subfonts' matrices aside.
 */
export function cffFontMatrix(data: Uint8Array): number | undefined {
  need(data.length > 4 && data[0] === 1, "a CFF program of another version");
  const index = (at: number): { items: [number, number][]; end: number } => {
    const count = (data[at]! << 8) | data[at + 1]!;
    if (count === 0) return { items: [], end: at + 2 };
    const size = data[at + 2]!;
    need(size >= 1 && size <= 4, "a CFF index's offset size");
    const offset = (i: number) => {
      let value = 0;
      for (let b = 0; b < size; b++) value = value * 256 + data[at + 3 + i * size + b]!;
      return value;
    };
    // Offsets count from 1, from the byte before the data.
    const base = at + 2 + (count + 1) * size;
    const items: [number, number][] = [];
    for (let i = 0; i < count; i++) items.push([base + offset(i), base + offset(i + 1)]);
    return { items, end: base + offset(count) };
  };
  const names = index(data[2]!);
  const top = index(names.end).items[0];
  need(top && top[1] <= data.length, "a CFF program without a top dictionary");
  const operands: number[] = [];
  let matrix: number | undefined;
  for (let at = top[0]; at < top[1];) {
    const b0 = data[at]!;
    if (b0 <= 21) {
      const operator = b0 === 12 ? 1200 + data[at + 1]! : b0;
      at += b0 === 12 ? 2 : 1;
      if (operator === 1207) {
        need(operands.length === 6, "a CFF font matrix");
        matrix = operands[0];
      }
      operands.length = 0;
    } else if (b0 === 28) {
      operands.push(((data[at + 1]! << 24) | (data[at + 2]! << 16)) >> 16);
      at += 3;
    } else if (b0 === 29) {
      operands.push(
        (data[at + 1]! << 24) | (data[at + 2]! << 16) | (data[at + 3]! << 8) | data[at + 4]!,
      );
      at += 5;
    } else if (b0 === 30) {
      let text = "";
      const nibbles = "0123456789.EE?-";
      for (at++;;) {
        const byte = data[at++]!;
        const [high, low] = [byte >> 4, byte & 15];
        if (high === 15) break;
        text += high === 12 ? "E-" : nibbles[high];
        if (low === 15) break;
        text += low === 12 ? "E-" : nibbles[low];
      }
      operands.push(parseFloat(text));
    } else if (b0 >= 32 && b0 <= 246) {
      operands.push(b0 - 139);
      at++;
    } else if (b0 >= 247 && b0 <= 250) {
      operands.push((b0 - 247) * 256 + data[at + 1]! + 108);
      at += 2;
    } else if (b0 >= 251 && b0 <= 254) {
      operands.push(-(b0 - 251) * 256 - data[at + 1]! - 108);
      at += 2;
    } else throw new Unsupported("a CFF dictionary's byte");
  }
  return matrix;
}

/** The symbol fonts whose encoding pdfjs chooses by their name (`getSymbolsFonts`): left to it. */
const SYMBOL_FONTS = new Set([
  "Dingbats",
  "Symbol",
  "ZapfDingbats",
  "Wingdings",
  "Wingdings-Bold",
  "Wingdings-Regular",
]);

/**
 * The text of a simple font's codes as pdfjs gives it (`buildToUnicode`, `_simpleFontToUnicode`,
 * `amendFallbackToUnicode` of its `PartialEvaluator`): from the `ToUnicode` map when the font has
 * one, else from its encoding (a base encoding, or the font's default one with its differences)
 * and the glyphs' names. A code whose text pdfjs would take from the font program's own encoding
 * (a Type 1 or CFF program's, or a TrueType font's tables) is {@linkcode Unsupported}.
 */
function simpleText(
  file: PdfFile,
  dict: Dict,
  descriptor: Dict,
  toUnicode: Map<number, string> | undefined,
): (code: number) => string {
  const encoding = file.get(dict, "Encoding");
  const differences = new Map<number, string>();
  let base: string | undefined;
  if (encoding !== undefined) {
    const named = encoding instanceof Map ? file.get(encoding, "BaseEncoding") : encoding;
    need(named === undefined || named instanceof Name, "an encoding that is not a name");
    base = named?.name;
    const list = encoding instanceof Map ? file.get(encoding, "Differences") : undefined;
    if (Array.isArray(list)) {
      let code = 0;
      for (const entry of list) {
        const value = file.resolve(entry);
        if (typeof value === "number") code = value;
        else {
          need(value instanceof Name, "a difference that is not a name");
          differences.set(code++, value.name);
        }
      }
    }
    if (base !== "MacRomanEncoding" && base !== "MacExpertEncoding" && base !== "WinAnsiEncoding") {
      base = undefined;
    }
  }
  const name = file.get(dict, "BaseFont");
  const symbolName = name instanceof Name && SYMBOL_FONTS.has(name.name);
  const hasEncoding = base !== undefined || differences.size > 0;
  const isTrueType = file.get(dict, "Subtype") === Name.of("TrueType");
  const flags = file.get(descriptor, "Flags");
  let symbolic = Number.isInteger(flags) && ((flags as number) & 4) !== 0;
  const nonsymbolic = Number.isInteger(flags) && ((flags as number) & 32) !== 0;
  if (isTrueType && symbolic && nonsymbolic && differences.size > 0) symbolic = false;
  const defaultEncoding = base ??
    (symbolic
      ? "MacRomanEncoding"
      : isTrueType && !nonsymbolic
      ? "WinAnsiEncoding"
      : "StandardEncoding");
  let fromEncoding: Map<number, string> | undefined;
  const encoded = () => {
    need(!symbolName, "the encoding of a symbol font");
    return fromEncoding ??= simpleFontToUnicode(
      baseEncoding(defaultEncoding)!,
      differences,
      base,
    );
  };
  if (toUnicode) {
    return (code) => {
      if (toUnicode.has(code)) return toUnicode.get(code) || String.fromCharCode(code);
      return (hasEncoding && encoded().get(code)) || String.fromCharCode(code);
    };
  }
  // Without a map, pdfjs amends the encoding's text from the program's own encoding (its
  // `adjustType1ToUnicode`): a Type 1 program's header's, read here, for the codes that its
  // differences and a base encoding leave out; a CFF program's (left to pdfjs); and a TrueType
  // font's tables when it has no encoding at all (left to pdfjs too).
  const header = type1Header(file, descriptor);
  const builtIn = header === undefined ? undefined : type1Encoding(header);
  need(hasEncoding || (builtIn !== undefined && !isTrueType), "a font whose text is its program's");
  const glyphs = glyphList();
  return (code) => {
    if (isTrueType || base !== undefined || differences.has(code)) {
      return encoded().get(code) || String.fromCharCode(code);
    }
    need(builtIn !== undefined, "a code that its program encodes");
    const name = builtIn[code];
    const point = name ? unicodeForGlyph(name, glyphs) : -1;
    if (point !== -1 && builtIn !== baseEncoding(defaultEncoding)) {
      return String.fromCharCode(point);
    }
    return encoded().get(code) || String.fromCharCode(code);
  };
}

/**
 * pdfjs's `_simpleFontToUnicode`: the text of each code of an encoding (a base one with
 * differences), by its glyph's name, or by the code point a name like `uni0041`, `g41` or `C65`
 * spells.
 */
function simpleFontToUnicode(
  defaultEncoding: readonly string[],
  differences: ReadonlyMap<number, string>,
  baseName: string | undefined,
  forceGlyphs = false,
): Map<number, string> {
  const encoding = defaultEncoding.slice();
  for (const [code, name] of differences) if (name !== ".notdef") encoding[code] = name;
  const glyphs = glyphList();
  const text = new Map<number, string>();
  for (const [code, name] of encoding.entries()) {
    if (name === undefined || name === "") continue;
    const known = glyphs.get(name);
    if (known !== undefined) {
      text.set(code, String.fromCharCode(known));
      continue;
    }
    let point = 0;
    switch (name[0]) {
      case "G":
        if (name.length === 3) point = parseInt(name.substring(1), 16);
        break;
      case "g":
        if (name.length === 5) point = parseInt(name.substring(1), 16);
        break;
      case "C":
      case "c":
        if (name.length >= 3 && name.length <= 4) {
          const digits = name.substring(1);
          if (forceGlyphs) {
            point = parseInt(digits, 16);
            break;
          }
          point = +digits;
          if (Number.isNaN(point) && Number.isInteger(parseInt(digits, 16))) {
            return simpleFontToUnicode(defaultEncoding, differences, baseName, true);
          }
        }
        break;
      case "u": {
        const unicode = unicodeForGlyph(name, glyphs);
        if (unicode !== -1) point = unicode;
        break;
      }
      default:
        if (name === "f_h" || name === "f_t" || name === "T_h") {
          text.set(code, name.replaceAll("_", ""));
          continue;
        }
    }
    if (point > 0 && point <= 0x10ffff && Number.isInteger(point)) {
      const inBase = baseName && point === code ? baseEncoding(baseName)?.[code] : undefined;
      if (inBase) {
        text.set(code, String.fromCharCode(glyphs.get(inBase)!));
        continue;
      }
      text.set(code, String.fromCodePoint(point));
    }
  }
  return text;
}

/** pdfjs's `getUnicodeForGlyph`: a known name's code point, or that of `uniXXXX` or `uXXXX[XX]`. */
function unicodeForGlyph(name: string, glyphs: ReadonlyMap<string, number>): number {
  const known = glyphs.get(name);
  if (known !== undefined) return known;
  if (name[0] === "u") {
    let hex: string;
    if (name.length === 7 && name[1] === "n" && name[2] === "i") hex = name.substring(3);
    else if (name.length >= 5 && name.length <= 7) hex = name.substring(1);
    else return -1;
    if (hex === hex.toUpperCase()) {
      const point = parseInt(hex, 16);
      if (point >= 0) return point;
    }
  }
  return -1;
}

/** pdfjs's name of a font: its descriptor's, unless that differs from the font's own. */
function fontName(file: PdfFile, dict: Dict, descriptor: Dict): string {
  const fromDescriptor = file.get(descriptor, "FontName");
  const base = file.get(dict, "BaseFont");
  need(base instanceof Name && fromDescriptor === base, "a font whose names differ");
  return base.name;
}

function readType0(file: PdfFile, dict: Dict, unicode: Map<number, string>): TextFont {
  need(file.get(dict, "Encoding") === Name.of("Identity-H"), "a Type 0 font not Identity-H");
  const descendants = file.get(dict, "DescendantFonts");
  need(Array.isArray(descendants) && descendants.length === 1, "a Type 0 font's descendants");
  const cid = file.resolve(descendants[0]);
  need(cid instanceof Map, "a descendant font that is not a dictionary");
  const descriptor = file.get(cid, "FontDescriptor");
  need(descriptor instanceof Map, "a CID font without a descriptor");
  // pdfjs scales the widths by an embedded program's matrix; without one, it would draw with the
  // dictionary's matrix and widths as they are, which is left to it.
  const embedded = ["FontFile", "FontFile2", "FontFile3"].some((key) =>
    file.get(descriptor, key) instanceof Stream
  );
  need(embedded || !cid.has("FontMatrix"), "a CID font with a matrix and no program");
  const matrix = embedded ? fontMatrix(file, cid, descriptor) : 0.001;
  const adjust = matrix === 0.001 ? 1 : 0.001 / matrix;
  const dw = file.get(cid, "DW");
  const widths = new Map<number, number>();
  const list = file.get(cid, "W");
  if (Array.isArray(list)) {
    for (let i = 0; i < list.length; i++) {
      let start = file.resolve(list[i++]);
      if (!Number.isInteger(start)) break;
      const next = file.resolve(list[i]);
      if (Array.isArray(next)) {
        for (const entry of next) {
          const width = file.resolve(entry);
          if (typeof width === "number") {
            widths.set(start as number, adjust === 1 ? width : width * adjust);
          }
          start = (start as number) + 1;
        }
      } else if (Number.isInteger(next)) {
        const width = file.resolve(list[++i]);
        if (typeof width !== "number") continue;
        for (let code = start as number; code <= (next as number); code++) {
          widths.set(code, adjust === 1 ? width : width * adjust);
        }
      } else break;
    }
  }
  return new TextFont(fontName(file, cid, descriptor), {
    widths,
    defaultWidth: (typeof dw === "number" ? Math.ceil(dw) : 1000) * adjust,
    twoBytes: true,
    text: (code) => unicode.get(code) || String.fromCharCode(code),
    matrix,
  });
}

const BEGIN_BFCHAR = Command.of("beginbfchar");
const END_BFCHAR = Command.of("endbfchar");
const BEGIN_BFRANGE = Command.of("beginbfrange");
const END_BFRANGE = Command.of("endbfrange");
const USECMAP = Command.of("usecmap");

/** The largest range of a map that pdfjs reads. */
const MAX_MAP_RANGE = 2 ** 24 - 1;

/**
 * A `ToUnicode` CMap: each code's text, its bytes read as UTF-16BE (a byte short of a pair
 * padded in front), as pdfjs reads them.
 */
export function readToUnicode(data: Uint8Array): Map<number, string> {
  const lexer = new Lexer(data);
  const raw = new Map<number, string>();
  const code = (token: unknown): number => {
    need(token instanceof PdfString && token.bytes.length <= 4, "a CMap code");
    let value = 0;
    for (let i = 0; i < token.bytes.length; i++) value = value * 256 + token.bytes.charCodeAt(i);
    return value;
  };
  for (let token = lexer.next(); token !== EOF; token = lexer.next()) {
    need(token !== USECMAP, "a CMap that uses another");
    if (token === BEGIN_BFCHAR) {
      for (let source = lexer.next(); source !== END_BFCHAR; source = lexer.next()) {
        const target = lexer.next();
        need(target instanceof PdfString, "a bfchar target that is not a string");
        raw.set(code(source), target.bytes);
      }
    } else if (token === BEGIN_BFRANGE) {
      for (let low = lexer.next(); low !== END_BFRANGE; low = lexer.next()) {
        let from = code(low);
        const to = code(lexer.next());
        need(to - from <= MAX_MAP_RANGE, "a bfrange too large");
        const target = lexer.next();
        if (target === "[") {
          for (let item = lexer.next(); item !== "]"; item = lexer.next()) {
            need(item instanceof PdfString, "a bfrange array item that is not a string");
            if (from <= to) raw.set(from++, item.bytes);
          }
          continue;
        }
        need(target instanceof PdfString && target.bytes.length > 0, "a bfrange target");
        let destination = target.bytes;
        const last = destination.length - 1;
        while (from <= to) {
          raw.set(from++, destination);
          const next = destination.charCodeAt(last) + 1;
          if (next > 0xff) {
            destination = destination.substring(0, last - 1) +
              String.fromCharCode(destination.charCodeAt(last - 1) + 1) + "\x00";
            continue;
          }
          destination = destination.substring(0, last) + String.fromCharCode(next);
        }
      }
    } else if (token instanceof Command && /^begin(cid|notdef)(range|char)$/.test(token.command)) {
      throw new Unsupported("a CMap with CID mappings");
    }
  }
  const unicode = new Map<number, string>();
  for (const [source, bytes] of raw) unicode.set(source, utf16be(bytes));
  return unicode;
}

/** Bytes of UTF-16BE as text, as pdfjs's `readToUnicode` decodes them. */
function utf16be(bytes: string): string {
  if (bytes.length % 2 !== 0) bytes = "\u0000" + bytes;
  const points: number[] = [];
  for (let k = 0; k < bytes.length; k += 2) {
    const w1 = (bytes.charCodeAt(k) << 8) | bytes.charCodeAt(k + 1);
    if ((w1 & 0xf800) !== 0xd800) {
      points.push(w1);
      continue;
    }
    k += 2;
    const w2 = (bytes.charCodeAt(k) << 8) | bytes.charCodeAt(k + 1);
    points.push(((w1 & 0x3ff) << 10) + (w2 & 0x3ff) + 0x10000);
  }
  return String.fromCodePoint(...points);
}
