/**
 * The objects of a PDF file as its syntax writes them (numbers, names, strings, arrays,
 * dictionaries, streams, references) and the lexer that reads them, from the file or from a
 * content stream: the part of reading a PDF that `file.ts` and `direct.ts` share.
 *
 * It reads what well-formed files hold and nothing else: anything it does not know ends the
 * reading with {@linkcode Unsupported}, so that pdfjs, which recovers damaged files, reads them.
 * @module
 */

import { Buffer } from "node:buffer";

/** What the direct reader leaves to pdfjs: a file, or a part of one, it does not read. */
export class Unsupported extends Error {
  override name = "Unsupported";
}

/** Ends the direct reading unless `condition` holds. */
export function need(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Unsupported(what);
}

/** A name (`/Font`), one object per spelling so that names compare with `===`. */
export class Name {
  static readonly #all = new Map<string, Name>();
  private constructor(readonly name: string) {}
  static of(name: string): Name {
    let known = Name.#all.get(name);
    if (!known) Name.#all.set(name, known = new Name(name));
    return known;
  }
}

/** An operator of a content stream, or a keyword of the file (`obj`, `R`, `stream`). */
export class Command {
  static readonly #all = new Map<string, Command>();
  private constructor(readonly command: string) {}
  static of(command: string): Command {
    let known = Command.#all.get(command);
    if (!known) Command.#all.set(command, known = new Command(command));
    return known;
  }
}

/** A reference to an indirect object. */
export class Ref {
  constructor(readonly num: number, readonly gen: number) {}
}

/** A string of bytes, each byte one character (the form text operators take their codes in). */
export class PdfString {
  constructor(readonly bytes: string) {}
}

/** A dictionary; its values may be references, resolved by whoever reads them. */
export type Dict = Map<string, PdfObject>;

/** A stream: its dictionary and where its bytes lie in the buffer they were read from. */
export class Stream {
  constructor(
    readonly dict: Dict,
    readonly data: Uint8Array,
  ) {}
}

export type PdfObject =
  | number
  | boolean
  | null
  | Name
  | PdfString
  | Ref
  | Dict
  | Stream
  | PdfObject[];

/** The end of the data, as the lexer gives it. */
export const EOF = Symbol("EOF");

const WHITESPACE = new Uint8Array(256);
for (const code of [0, 9, 10, 12, 13, 32]) WHITESPACE[code] = 1;
const DELIMITER = new Uint8Array(256);
for (const character of "()<>[]{}/%") DELIMITER[character.charCodeAt(0)] = 1;

/** What ends a regular token (a number, a keyword, a name's characters). */
function ends(code: number): boolean {
  return WHITESPACE[code] === 1 || DELIMITER[code] === 1;
}

/** A token of the syntax: an object's part, or a keyword or operator. */
export type Token =
  | number
  | boolean
  | null
  | Name
  | PdfString
  | Command
  | typeof EOF
  | "["
  | "]"
  | "<<"
  | ">>";

const SHORT_COMMANDS = new Map<number, Command>();
const TRUE = Command.of("true");
const FALSE = Command.of("false");
const NULL = Command.of("null");

/** Reads the tokens of PDF syntax from bytes, from a position on. */
export class Lexer {
  position: number;
  constructor(readonly bytes: Uint8Array, position = 0) {
    this.position = position;
  }

  /** Moves past whitespace and comments; the next byte, or -1 at the end. */
  skipSpace(): number {
    const bytes = this.bytes;
    let at = this.position;
    while (at < bytes.length) {
      const code = bytes[at]!;
      if (WHITESPACE[code] === 1) at++;
      else if (code === 0x25) {
        while (at < bytes.length && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at++;
      } else break;
    }
    this.position = at;
    return at < bytes.length ? bytes[at]! : -1;
  }

  next(): Token {
    const code = this.skipSpace();
    if (code < 0) return EOF;
    const bytes = this.bytes;
    switch (code) {
      case 0x28: // (
        return this.#literal();
      case 0x2f: // /
        return this.#name();
      case 0x5b: // [
        this.position++;
        return "[";
      case 0x5d: // ]
        this.position++;
        return "]";
      case 0x3c: // <
        if (bytes[this.position + 1] === 0x3c) {
          this.position += 2;
          return "<<";
        }
        return this.#hex();
      case 0x3e: // >
        need(bytes[this.position + 1] === 0x3e, "a lone '>'");
        this.position += 2;
        return ">>";
      case 0x29:
      case 0x7b:
      case 0x7d:
        throw new Unsupported(`the delimiter '${String.fromCharCode(code)}'`);
    }
    if ((code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2d || code === 0x2e) {
      return this.#number();
    }
    const start = this.position;
    let at = start;
    let key = 0;
    while (at < bytes.length && !ends(bytes[at]!)) key = key * 256 + bytes[at++]!;
    this.position = at;
    // Operators are one to three bytes: found by those bytes as a number, without a string.
    let command = at - start <= 3 ? SHORT_COMMANDS.get(key) : undefined;
    if (!command) {
      command = Command.of(latin1(bytes, start, at));
      if (at - start <= 3) SHORT_COMMANDS.set(key, command);
    }
    if (command === TRUE) return true;
    if (command === FALSE) return false;
    if (command === NULL) return null;
    return command;
  }

  /** A number as pdfjs reads it: the digits as a whole number, divided by a power of ten. */
  #number(): number {
    const bytes = this.bytes;
    let at = this.position;
    let sign = 1;
    if (bytes[at] === 0x2d) {
      sign = -1;
      at++;
    } else if (bytes[at] === 0x2b) at++;
    let divideBy = 0;
    if (bytes[at] === 0x2e) {
      divideBy = 10;
      at++;
    }
    let code = at < bytes.length ? bytes[at]! : -1;
    need(code >= 0x30 && code <= 0x39, "a malformed number");
    let value = code - 0x30;
    for (at++; at < bytes.length; at++) {
      code = bytes[at]!;
      if (code >= 0x30 && code <= 0x39) {
        if (divideBy !== 0) divideBy *= 10;
        value = value * 10 + code - 0x30;
      } else if (code === 0x2e && divideBy === 0) divideBy = 1;
      else break;
    }
    need(at >= bytes.length || ends(bytes[at]!), "a malformed number");
    this.position = at;
    if (divideBy !== 0) value /= divideBy;
    return sign * value;
  }

  #name(): Name {
    const bytes = this.bytes;
    let at = ++this.position;
    let name = "";
    let from = at;
    while (at < bytes.length && !ends(bytes[at]!)) {
      if (bytes[at] === 0x23) {
        const value = parseInt(latin1(bytes, at + 1, at + 3), 16);
        need(Number.isInteger(value) && at + 2 < bytes.length, "a malformed name escape");
        name += latin1(bytes, from, at) + String.fromCharCode(value);
        at += 3;
        from = at;
      } else at++;
    }
    this.position = at;
    return Name.of(name + latin1(bytes, from, at));
  }

  #literal(): PdfString {
    const bytes = this.bytes;
    let at = this.position + 1;
    let depth = 1;
    let text = "";
    let from = at;
    for (;;) {
      need(at < bytes.length, "an unterminated string");
      const code = bytes[at]!;
      if (code === 0x28) depth++;
      else if (code === 0x29 && --depth === 0) break;
      else if (code === 0x5c) {
        text += latin1(bytes, from, at);
        at++;
        const escaped = bytes[at]!;
        at++;
        switch (escaped) {
          case 0x6e:
            text += "\n";
            break;
          case 0x72:
            text += "\r";
            break;
          case 0x74:
            text += "\t";
            break;
          case 0x62:
            text += "\b";
            break;
          case 0x66:
            text += "\f";
            break;
          case 0x0d:
            if (bytes[at] === 0x0a) at++;
            break;
          case 0x0a:
            break;
          default:
            if (escaped >= 0x30 && escaped <= 0x37) {
              let value = escaped - 0x30;
              for (let i = 0; i < 2 && bytes[at]! >= 0x30 && bytes[at]! <= 0x37; i++) {
                value = value * 8 + bytes[at++]! - 0x30;
              }
              text += String.fromCharCode(value & 0xff);
            } else {
              text += String.fromCharCode(escaped);
            }
        }
        from = at;
        continue;
      }
      at++;
    }
    text += latin1(bytes, from, at);
    this.position = at + 1;
    return new PdfString(text);
  }

  #hex(): PdfString {
    const bytes = this.bytes;
    let at = this.position + 1;
    let text = "";
    let high = -1;
    for (;; at++) {
      need(at < bytes.length, "an unterminated hex string");
      const code = bytes[at]!;
      if (code === 0x3e) break;
      if (WHITESPACE[code] === 1) continue;
      const value = hexValue(code);
      need(value >= 0, "a malformed hex string");
      if (high < 0) high = value;
      else {
        text += String.fromCharCode(high * 16 + value);
        high = -1;
      }
    }
    if (high >= 0) text += String.fromCharCode(high * 16);
    this.position = at + 1;
    return new PdfString(text);
  }
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/**
 * The bytes from `start` to `end` as a string of one character a byte. Not `TextDecoder`'s
 * "latin1", which is windows-1252 (0x93 is U+201C there), but Node's, byte for byte.
 */
export function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  if (end - start < 16) {
    let text = "";
    for (let at = start; at < end; at++) text += String.fromCharCode(bytes[at]!);
    return text;
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("latin1");
}

const R = Command.of("R");

/**
 * Reads objects from a lexer: a token that opens an array or a dictionary reads up to its end,
 * and two numbers followed by `R` are a reference, unless `references` is false (a content
 * stream, which has none: its numbers are then not read ahead).
 */
export class Parser {
  readonly #lexer: Lexer;
  readonly #references: boolean;
  #buffer: Token[] = [];
  constructor(lexer: Lexer, { references = true }: { references?: boolean } = {}) {
    this.#lexer = lexer;
    this.#references = references;
  }

  get lexer(): Lexer {
    return this.#lexer;
  }

  #token(): Token {
    return this.#buffer.length > 0 ? this.#buffer.shift()! : this.#lexer.next();
  }

  /** The next object, or a command, or the end. */
  next(): PdfObject | Command | typeof EOF {
    const token = this.#token();
    if (token === "[") {
      const array: PdfObject[] = [];
      for (;;) {
        const item = this.next();
        if (item === EOF) throw new Unsupported("an unterminated array");
        if (item instanceof Command) {
          need(item === CLOSE_ARRAY, `the keyword ${item.command} in an array`);
          return array;
        }
        array.push(item);
      }
    }
    if (token === "<<") {
      const dict: Dict = new Map();
      for (;;) {
        const key = this.next();
        if (key === CLOSE_DICT) return dict;
        need(key instanceof Name, "a dictionary key that is not a name");
        const value = this.next();
        need(value !== EOF && !(value instanceof Command), "a dictionary value that is a keyword");
        dict.set(key.name, value);
      }
    }
    if (token === "]") return CLOSE_ARRAY;
    if (token === ">>") return CLOSE_DICT;
    if (this.#references && typeof token === "number" && Number.isInteger(token) && token >= 0) {
      // Two whole numbers and R: a reference; otherwise the numbers are read again as they are.
      const second = this.#token();
      if (typeof second === "number" && Number.isInteger(second) && second >= 0) {
        const third = this.#token();
        if (third === R) return new Ref(token, second);
        this.#buffer.push(second, third);
      } else this.#buffer.push(second);
      return token;
    }
    return token;
  }
}

const CLOSE_ARRAY = Command.of("]");
const CLOSE_DICT = Command.of(">>");
