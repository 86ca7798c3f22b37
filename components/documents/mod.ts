/**
 * The document formats svc reads, one handler per format, found by suffix
 * regardless of case.
 * @module
 */
import { extname } from "node:path";
import { quote, SvcError } from "../core/errors.ts";
import { docxHandler } from "./docx.ts";
import type { DocumentHandler } from "./handler.ts";
import { pdfHandler } from "./pdf.ts";
import { pptxHandler } from "./pptx.ts";
import { textHandler } from "./text.ts";

export type { DocumentHandler } from "./handler.ts";

const HANDLERS: ReadonlyMap<string, DocumentHandler> = new Map(
  [textHandler, pdfHandler, docxHandler, pptxHandler].flatMap((handler) =>
    handler.suffixes.map((suffix) => [suffix, handler] as const)
  ),
);

/** The suffixes of the supported formats, lower case, sorted. */
export function supportedSuffixes(): string[] {
  return [...HANDLERS.keys()].sort();
}

/**
 * The handler for a document name.
 *
 * @throws {SvcError} 422 naming the document and the supported suffixes
 */
export function handlerFor(name: string): DocumentHandler {
  const suffix = extname(name).toLowerCase();
  const handler = HANDLERS.get(suffix);
  if (handler) return handler;
  const problem = suffix ? `the suffix ${quote(suffix)} is not supported` : "it has no suffix";
  throw new SvcError(
    `Cannot read ${quote(name)}: ${problem}; supported are ${supportedSuffixes().join(", ")}`,
    { status: 422 },
  );
}
