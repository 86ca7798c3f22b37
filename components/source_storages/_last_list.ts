/**
 * A list given again as the one given last when it holds the same items, so
 * that what was made of that one can be known again by its identity.
 * @module
 */

/**
 * The last list given, in place of an equal one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LastList } from "./_last_list.ts";
 * const lists = new LastList<string>((a, b) => a === b);
 * const first = lists.of(["a", "b"]);
 * assert.equal(lists.of(["a", "b"]), first);
 * assert.notEqual(lists.of(["b", "a"]), first);
 * ```
 */
export class LastList<T> {
  #last: readonly T[] | undefined;
  readonly #same: (a: T, b: T) => boolean;

  /** Lists whose items are the same by `same`. */
  constructor(same: (a: T, b: T) => boolean) {
    this.#same = same;
  }

  /** `list`, or the last list given when it has the same items in the same order. */
  of(list: readonly T[]): readonly T[] {
    const last = this.#last;
    if (last?.length === list.length && last.every((item, i) => this.#same(item, list[i]!))) {
      return last;
    }
    return this.#last = list;
  }
}
