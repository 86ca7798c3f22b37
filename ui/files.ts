/**
 * Which files a chat accepts: the API lists the document suffixes it reads.
 * @module
 */

/** The lower-cased suffix of a file name with its dot (`.pdf`), or `""`. */
export function suffixOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/**
 * Why a file is refused, or `null` when it is accepted. Suffixes match
 * whatever their case.
 *
 * @example
 * ```ts
 * import { refusal } from "./files.ts";
 * console.assert(refusal("Report.PDF", [".pdf"]) === null);
 * console.assert(refusal("photo.png", [".pdf", ".md"])!.includes(".png"));
 * ```
 */
export function refusal(name: string, suffixes: readonly string[]): string | null {
  const suffix = suffixOf(name);
  const allowed = suffixes.map((s) => s.toLowerCase());
  if (allowed.includes(suffix)) return null;
  const kinds = allowed.join(", ");
  return suffix === ""
    ? `"${name}" has no file type suffix; svc reads ${kinds}`
    : `svc cannot read ${suffix} files; it reads ${kinds}`;
}

/** A size in words: `980 B`, `12.3 kB`, `4.5 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB"];
  let value = bytes;
  let unit = "B";
  for (const next of units) {
    if (value < 1000) break;
    value /= 1000;
    unit = next;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

/**
 * A page count in words: slides for a presentation.
 *
 * @example
 * ```ts
 * import { pageCount } from "./files.ts";
 * console.assert(pageCount("report.pdf", 3) === "3 pages");
 * console.assert(pageCount("deck.pptx", 1) === "1 slide");
 * ```
 */
export function pageCount(name: string, count: number): string {
  const unit = /\.pptx$/i.test(name) ? "slide" : "page";
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}
