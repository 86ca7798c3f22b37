/**
 * The limit every reader shares: how much text one document may yield, counted as its pages come,
 * so that a reading stops at the limit rather than after it built everything.
 * @module
 */
import { unreadable } from "../core/errors.ts";

/**
 * The most characters of text one document may yield, all its pages together: some ten times
 * what a 2,000-page manual holds, and little enough that its pages, its chunks and their copies
 * between threads stay within a reader's memory.
 */
export const MAX_DOCUMENT_CHARACTERS = 32 * 2 ** 20;

/**
 * Counts the characters a document yields, refusing the document once they pass
 * {@linkcode MAX_DOCUMENT_CHARACTERS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TextBudget } from "./limits.ts";
 * const budget = new TextBudget("notes.md", 10);
 * budget.take("0123456789");
 * assert.throws(() => budget.take("!"), {
 *   message: 'Cannot read "notes.md": it holds more than 10 characters of text',
 * });
 * ```
 */
export class TextBudget {
  readonly #name: string;
  readonly #limit: number;
  #left: number;

  /** A budget for the document `name`. */
  constructor(name: string, limit: number = MAX_DOCUMENT_CHARACTERS) {
    this.#name = name;
    this.#limit = limit;
    this.#left = limit;
  }

  /**
   * Counts `text` (or that many characters) against the budget.
   *
   * @throws {SvcError} 422 naming the document once the budget is spent
   */
  take(text: string | number): void {
    this.#left -= typeof text === "number" ? text : text.length;
    if (this.#left < 0) {
      throw unreadable(
        this.#name,
        `it holds more than ${this.#limit.toLocaleString("en-US")} characters of text`,
      );
    }
  }
}
