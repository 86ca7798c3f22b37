/**
 * Documents: a name whose suffix names a supported format, and bytes.
 * `Document` says which handler reads its format; the handlers themselves,
 * and the reading of pages, are in `components/documents/`.
 * @module
 */
import { basename, extname, fileURLToPath, resolve } from "./paths.ts";
import { quote, SvcError } from "./errors.ts";
import type { Page } from "./page.ts";

/** The suffixes of the formats svc reads, lower case, sorted; each has a handler in `components/documents/`. */
const SUFFIXES: readonly string[] = [".docx", ".md", ".pdf", ".pptx", ".txt"];

/**
 * The suffixes of the supported formats, lower case, sorted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { supportedSuffixes } from "@svc/svc";
 * assert(supportedSuffixes().includes(".pdf"));
 * ```
 */
export function supportedSuffixes(): string[] {
  return [...SUFFIXES];
}

/** What every document is built from. */
export interface DocumentOptions {
  /** The document's id; a fresh UUID when left out. */
  id?: string;
  /** The document's file name; its suffix picks the format. */
  name: string;
  /** Whatever the document class needs to find the content again (a path, a key). */
  metadata?: Record<string, unknown>;
}

/** A class of documents that can be made from {@linkcode DocumentOptions}, such as `LocalDocument`. */
export type DocumentClass = new (options: DocumentOptions) => Document;

/**
 * svc's document handlers (`components/documents/`), imported by a name Deno does not read ahead
 * the first time a document is read: a start needs none of them, and the core knows them only
 * by this name. `deploy/compile.ts` includes the module in the binary.
 */
export const READERS_MODULE = "../documents/mod.ts";

/** What this module needs of {@linkcode READERS_MODULE}. */
interface Readers {
  readPages(document: Document): Promise<Page[]>;
}

/**
 * A document that svc can read: a name whose suffix names a supported format,
 * and bytes. Subclasses say where the bytes live.
 */
export abstract class Document {
  /** The largest document svc reads, in bytes. */
  static maxSize: number = 256 * 1024 * 1024;

  /**
   * Whether the class reads its pages itself, in its own `extractPages()`;
   * else svc's handler of the format reads them from the bytes, in a reader
   * thread whose memory and time are capped. A class that overrides
   * `extractPages()` sets this to `true`.
   */
  static readsOwnPages: boolean = false;

  readonly id: string;
  readonly name: string;
  readonly metadata: Record<string, unknown>;

  /** @throws {SvcError} 422 when the name's suffix is not a supported format. */
  constructor(options: DocumentOptions) {
    const suffix = formatOf(options.name);
    if (!SUFFIXES.includes(suffix)) {
      const problem = suffix ? `the suffix ${quote(suffix)} is not supported` : "it has no suffix";
      throw new SvcError(
        `Cannot read ${quote(options.name)}: ${problem}; supported are ${SUFFIXES.join(", ")}`,
        { status: 422 },
      );
    }
    this.id = options.id ?? crypto.randomUUID();
    this.name = options.name;
    this.metadata = options.metadata ?? {};
  }

  /** The suffixes of the supported formats, lower case, sorted: `[".docx", ".md", ...]`. */
  static supportedSuffixes(): string[] {
    return supportedSuffixes();
  }

  /**
   * The document's format, which names the handler that reads it: the suffix
   * of its name in lower case, `".pdf"`.
   */
  get format(): string {
    return formatOf(this.name);
  }

  /** Whether the content can be read now (an upload may still be missing). */
  abstract isReadable(): Promise<boolean>;

  /** The content of the document. */
  abstract read(): Promise<Uint8Array>;

  /**
   * The pages of the document, as its format defines them. A class that
   * overrides this declares {@linkcode Document.readsOwnPages}.
   *
   * @throws {SvcError} 422 naming the document and the problem when the content is
   * empty, encrypted, truncated, oversized or not of the format its suffix says.
   */
  async extractPages(): Promise<Page[]> {
    const { readPages }: Readers = await import(READERS_MODULE);
    return await readPages(this);
  }
}

/** A document in a file on this machine. */
export class LocalDocument extends Document {
  /** @throws {SvcError} when `metadata.path` is missing. */
  constructor(options: DocumentOptions) {
    super(options);
    if (typeof this.metadata.path !== "string") {
      throw new SvcError(
        `Cannot create the local document ${quote(options.name)}: its metadata has no "path"`,
      );
    }
  }

  /**
   * A document for the file at `path`, named after it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { LocalDocument } from "@svc/svc";
   * const document = LocalDocument.fromPath("report.pdf");
   * assert(document.name === "report.pdf");
   * ```
   */
  static fromPath(
    path: string | URL,
    options: Omit<DocumentOptions, "name"> = {},
  ): LocalDocument {
    if (options.metadata && "path" in options.metadata) {
      throw new SvcError(
        `Cannot take a path twice: pass it as the argument, or construct LocalDocument with metadata.path`,
      );
    }
    const absolute = resolve(path instanceof URL ? fileURLToPath(path) : path);
    return new LocalDocument({
      ...options,
      name: basename(absolute),
      metadata: { ...options.metadata, path: absolute },
    });
  }

  /** The absolute path of the file. */
  get path(): string {
    return this.metadata.path as string;
  }

  override async isReadable(): Promise<boolean> {
    try {
      return (await Deno.stat(this.path)).isFile;
    } catch {
      return false;
    }
  }

  override async read(): Promise<Uint8Array> {
    try {
      return await Deno.readFile(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new SvcError(`Cannot read ${quote(this.name)}: the file does not exist`, {
          status: 404,
          cause: error,
        });
      }
      throw new SvcError(`Cannot read ${quote(this.name)}: ${(error as Error).message}`, {
        status: 422,
        cause: error,
      });
    }
  }
}

function formatOf(name: string): string {
  return extname(name).toLowerCase();
}
