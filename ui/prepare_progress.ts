/**
 * Preparing documents as bars: where each document stands, from the steps
 * the API streams, as a fraction and in words.
 * @module
 */
import type { PrepareProgress } from "./api_types.ts";

/** The last step of each document, by document id. */
export type ProgressByDocument = Readonly<Record<string, PrepareProgress>>;

/** The steps so far with one more. */
export function withStep(steps: ProgressByDocument, step: PrepareProgress): ProgressByDocument {
  return { ...steps, [step.document.id]: step };
}

/**
 * How far a document is, from 0 to 1: reading is the first tenth, parsing up
 * to two thirds, indexing the rest.
 *
 * @example
 * ```ts
 * import { fraction } from "./prepare_progress.ts";
 * const document = { id: "d", name: "a.pdf" };
 * console.assert(fraction(undefined) === 0);
 * console.assert(fraction({ document, stage: "indexed", chunks: 3 }) === 1);
 * ```
 */
export function fraction(step: PrepareProgress | undefined): number {
  switch (step?.stage) {
    case undefined:
      return 0;
    case "reading":
      return 0.1;
    case "parsed":
      return 0.66;
    default:
      return 1;
  }
}

/**
 * Where a document stands, in words.
 *
 * @example
 * ```ts
 * import { stepText } from "./prepare_progress.ts";
 * const document = { id: "d", name: "a.pdf" };
 * console.assert(stepText({ document, stage: "parsed", pages: 3 }) === "3 pages read · indexing…");
 * console.assert(stepText({ document, stage: "indexed", pages: 1, chunks: 1 }) === "Ready · 1 passage");
 * ```
 */
export function stepText(step: PrepareProgress | undefined): string {
  switch (step?.stage) {
    case undefined:
      return "Waiting…";
    case "reading":
      return "Reading…";
    case "parsed":
      return `${plural(step.pages ?? 0, "page")} read · indexing…`;
    case "indexed":
      return step.chunks === undefined
        ? "Ready · indexed before"
        : `Ready · ${plural(step.chunks, "passage")}`;
    case "failed":
      return `Cannot be prepared: ${step.error ?? "it failed"}`;
  }
}

function plural(count: number, word: string): string {
  return `${count} ${count === 1 ? word : `${word}s`}`;
}
